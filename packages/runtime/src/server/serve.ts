/**
 * `serve`: one entry point over both transports, so a generated scaffold's `serve` function is a
 * one-liner; `parseServeArgs` reads `--http`, `--port`, `--host` and `--path` from a command line.
 */
import { type HttpServeOptions, serveHttp } from "./http-server.js";
import { type StdioServeOptions, serveStdio } from "./stdio-server.js";
import type { ToolServer } from "./tool-server.js";

/** Which transport to serve on, with its options. */
export type ServeOptions = ({ readonly transport: "stdio" } & StdioServeOptions) | ({ readonly transport: "http" } & HttpServeOptions);

/** A running server on either transport. */
export interface ServeHandle {
  readonly transport: "stdio" | "http";
  /** The endpoint URL over HTTP; undefined over stdio. */
  readonly url: string | undefined;
  /** Resolves when the server stops (stdin ended, or `close()`). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves `server` over stdio (the default) or Streamable HTTP. */
export async function serve(server: ToolServer, options: ServeOptions = { transport: "stdio" }): Promise<ServeHandle> {
  if (options.transport === "http") {
    const { transport: _t, ...rest } = options;
    const http = await serveHttp(server, rest);
    let resolveClosed: () => void = () => {};
    const closed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });
    return {
      transport: "http",
      url: http.url,
      closed,
      close: () => http.close().then(resolveClosed),
    };
  }
  const { transport: _t, ...rest } = options;
  const stdio = serveStdio(server, rest);
  return {
    transport: "stdio",
    url: undefined,
    closed: stdio.closed,
    async close() {
      stdio.close();
    },
  };
}

/**
 * Reads serve options from command-line arguments: `--http` (or `--port N`) selects HTTP, with
 * `--host H` and `--path P`; anything else means stdio. Unknown flags throw with a usage line.
 * Without `argv` it reads this process's arguments, so a server's main file needs no Node globals.
 */
export function parseServeArgs(argv: readonly string[] = process.argv.slice(2)): ServeOptions {
  let http = false;
  const out: { port?: number; host?: string; path?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--"))
        throw new Error(`${arg} needs a value. Usage: [--http] [--port N] [--host H] [--path /mcp]`);
      return v;
    };
    if (arg === "--http") http = true;
    else if (arg === "--stdio") http = false;
    else if (arg === "--port") {
      const port = Number(value());
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer from 0 to 65535; got ${argv[i]}`);
      out.port = port;
      http = true;
    } else if (arg === "--host") out.host = value();
    else if (arg === "--path") out.path = value();
    else throw new Error(`unknown argument ${arg}. Usage: [--http] [--port N] [--host H] [--path /mcp]`);
  }
  return http ? { transport: "http", ...out } : { transport: "stdio" };
}
