/**
 * `serveMock`: serves a generated mock from this process, over stdio (this process's stdin and
 * stdout) or streamable HTTP on 127.0.0.1. The `toolwright mock` command runs it; a test that
 * spawns the command reads the calls back from the record file (one JSON line per call or failure).
 */
import { appendFileSync } from "node:fs";
import { type HttpServerHandle, serveHttp, serveStdio } from "@toolwright/runtime/server";
import { createMockServer, type MockServer } from "../mock/mock-server.js";
import type { MockDefinition } from "../mock/types.js";

/** Options of `serveMock`. */
export interface ServeMockOptions {
  /** Default `stdio`. */
  readonly transport?: "stdio" | "http";
  /** HTTP port on 127.0.0.1 (default 0: an ephemeral port). */
  readonly port?: number;
  /** A file to append every call and failure to, one JSON line each (`{"kind":"call",...}`). */
  readonly record?: string;
}

/** A mock being served. */
export interface ServedMock {
  readonly mock: MockServer;
  /** The HTTP endpoint (`http` only). */
  readonly url: string | undefined;
  /** Resolves when the client ends stdin (stdio) or `close()` is called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves `definition` over this process's stdio or over HTTP on 127.0.0.1. */
export async function serveMock(definition: MockDefinition, options: ServeMockOptions = {}): Promise<ServedMock> {
  const record = options.record;
  // The record is written as things happen, so a parent reading it mid-test sees every answered call.
  const write = (entry: object) => {
    if (record !== undefined) appendFileSync(record, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  };
  const mock = createMockServer(definition, {
    intercept: (call, answer) => {
      write({ kind: "call", ...call });
      return answer();
    },
    onFailure: (failure) => write({ kind: "failure", ...failure }),
  });
  if ((options.transport ?? "stdio") === "stdio") {
    const handle = serveStdio(mock.server);
    return { mock, url: undefined, closed: handle.closed, close: async () => handle.close() };
  }
  const handle: HttpServerHandle = await serveHttp(mock.server, { host: "127.0.0.1", port: options.port ?? 0 });
  let done: () => void = () => {};
  const closed = new Promise<void>((r) => {
    done = r;
  });
  return {
    mock,
    url: handle.url,
    closed,
    async close() {
      await handle.close();
      done();
    },
  };
}
