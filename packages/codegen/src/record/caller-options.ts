/**
 * The runtime caller options for a design's `externalServer` connection: shared by `toolwright
 * pull` (which lists it) and `toolwright record` (which records a session on it), so both reach
 * a server the same way. Relative `cwd` and the default cwd are the design's folder.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import type { ExternalServerDecl } from "@toolwright/dsl";
import type { HttpCallerOptions } from "@toolwright/runtime/http";
import type { StdioCallerOptions } from "@toolwright/runtime/stdio";
import type { ConnectionContext } from "../resolve/connection.js";

/** Caller options for a stdio or an HTTP connection. */
export type CallerOptionsFor = { readonly stdio: StdioCallerOptions } | { readonly http: HttpCallerOptions };

/** Options for a declared `url` or `command` connection; undefined for any other kind (mcpJson entries). */
export function callerOptionsFor(server: ExternalServerDecl, ctx: ConnectionContext, timeoutMs: number): CallerOptionsFor | undefined {
  const c = server.connection;
  const designDir = ctx.designPath === undefined ? ctx.cwd : dirname(ctx.designPath);
  if ("url" in c) {
    return {
      http: {
        name: server.name,
        url: c.url,
        ...(c.headers ? { headers: c.headers } : {}),
        ...(c.outbound ? { outbound: c.outbound } : {}),
        capabilities: c.capabilities ?? {},
        connectTimeoutMs: timeoutMs,
        timeoutMs,
      },
    };
  }
  if (!("command" in c)) return undefined;
  const cwd = c.cwd === undefined ? designDir : isAbsolute(c.cwd) ? c.cwd : resolve(designDir, c.cwd);
  return {
    stdio: {
      name: server.name,
      command: c.command === "node" ? process.execPath : c.command,
      args: [...(c.args ?? [])],
      env: [...(c.env ?? [])],
      cwd,
      // By default no roots, sampling or elicitation: the catalogue a plain client sees.
      capabilities: c.capabilities ?? {},
      connectTimeoutMs: timeoutMs,
      timeoutMs,
      restartDelayMs: 60_000,
    },
  };
}
