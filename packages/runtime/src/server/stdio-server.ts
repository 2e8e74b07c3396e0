/**
 * `serveStdio`: serves a tool server over newline-delimited JSON on stdin/stdout (one session).
 * Reuses the runtime's capped line reader; stdout carries only JSON-RPC, so logs belong on stderr.
 */
import type { Readable, Writable } from "node:stream";
import type { RpcMessage } from "../protocol/json-rpc.js";
import { createLineReader } from "../transport/line-reader.js";
import type { ToolServer } from "./tool-server.js";

/** Options for `serveStdio`. */
export interface StdioServeOptions {
  /** Defaults to `process.stdin`. */
  readonly stdin?: Readable;
  /** Defaults to `process.stdout`. */
  readonly stdout?: Writable;
  /** Largest inbound message; longer lines are dropped and answered with a parse error. Default 4 MiB. */
  readonly maxMessageBytes?: number;
}

/** A running stdio server. */
export interface StdioServerHandle {
  /** Resolves when stdin ends or `close()` is called. */
  readonly closed: Promise<void>;
  /** Stops reading, aborts in-flight handlers. Does not close the streams themselves. */
  close(): void;
}

/** Serves `server` over stdio until stdin ends. */
export function serveStdio(server: ToolServer, options: StdioServeOptions = {}): StdioServerHandle {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  let finished = false;
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  // Answers produced in the same turn of the event loop go out in one write: with many calls in
  // flight, one write per answer made the write syscalls the server's largest cost (issue 32 profile).
  // The flush runs on nextTick, after the promise jobs that finish the other answers of the turn.
  let pending = "";
  const flush = () => {
    const out = pending;
    pending = "";
    if (out !== "") stdout.write(out);
  };
  const write = (message: RpcMessage): boolean => {
    if (finished) return false;
    if (pending === "") process.nextTick(flush);
    pending += `${JSON.stringify(message)}\n`;
    return true;
  };
  const session = server.openSession({ send: (message) => write(message) });
  const reader = createLineReader(options.maxMessageBytes ?? 4 * 1024 * 1024, {
    onMessage: (value) => session.receive(value),
    onNoise: (reason) => void write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: `Parse error: ${reason}` } }),
  });

  const onData = (chunk: Buffer | string) => reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  const finish = () => {
    if (finished) return;
    finished = true;
    // Answers accepted before the end still go out.
    flush();
    stdin.off("data", onData);
    stdin.off("end", finish);
    stdin.off("close", finish);
    stdout.off("error", finish);
    session.close();
    resolveClosed();
  };
  stdin.on("data", onData);
  stdin.once("end", finish);
  stdin.once("close", finish);
  // EPIPE and friends: the client went away.
  stdout.on("error", finish);
  return {
    closed,
    close() {
      finish();
      stdin.pause();
    },
  };
}
