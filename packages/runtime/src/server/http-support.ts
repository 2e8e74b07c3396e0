/**
 * Small HTTP helpers for `serveHttp`: bounded body reading, JSON-RPC error replies, and the
 * Host/Origin policy that protects loopback servers from DNS rebinding.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Classified, RpcResponse } from "../protocol/json-rpc.js";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]", "::1"];

/** Which Host and Origin values a server accepts; undefined means any. */
export interface HostPolicy {
  readonly hosts: readonly string[] | undefined;
  readonly origins: readonly string[] | undefined;
}

/** The default policy: loopback-only names when bound to loopback, else only what was configured. */
export function hostPolicy(bind: string, hosts?: readonly string[], origins?: readonly string[]): HostPolicy {
  // DNS rebinding: a web page reaches a loopback server under the attacker's host name. Accepting only
  // loopback Host names stops it; the spec requires servers to validate Origin for the same reason.
  const loopback = LOOPBACK.includes(bind) || bind.startsWith("127.");
  return {
    hosts: hosts ?? (loopback ? [...LOOPBACK, bind] : undefined),
    origins,
  };
}

function hostName(hostHeader: string): string {
  // An IPv6 literal keeps its brackets, and its colons are not the port separator.
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  const colon = hostHeader.lastIndexOf(":");
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

/** A refusal message when Host or Origin is not allowed, else undefined. */
export function checkHostAndOrigin(req: IncomingMessage, policy: HostPolicy): string | undefined {
  const host = req.headers.host;
  if (policy.hosts) {
    if (typeof host !== "string" || !policy.hosts.includes(hostName(host)))
      return `Forbidden: Host ${JSON.stringify(host ?? "")} is not allowed`;
  }
  // No Origin: not a cross-site browser request (SDKs, CLIs), so only the Host check applies.
  const origin = req.headers.origin;
  if (typeof origin === "string") {
    if (policy.origins) {
      if (!policy.origins.includes(origin)) return `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`;
    } else if (policy.hosts) {
      // No configured origins: an Origin must name an allowed host, so a page on another site is refused.
      let name: string | undefined;
      try {
        name = new URL(origin).hostname;
      } catch {
        name = undefined;
      }
      if (name === undefined || !policy.hosts.includes(name)) return `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`;
    }
  }
  return undefined;
}

/** The -32600 answer to a message that is not JSON-RPC: its id echoed when it can be read, else null (JSON-RPC 2.0). */
export function invalidAnswer(message: unknown, reason: string): RpcResponse {
  const id = (message as { id?: unknown } | null)?.id;
  const echoed = typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
  return { jsonrpc: "2.0", id: echoed, error: { code: -32600, message: `Invalid Request: ${reason}` } };
}

/** The -32600 answers to the invalid messages of a POST body, in order. */
export function invalidAnswers(messages: readonly unknown[], kinds: readonly Classified[]): RpcResponse[] {
  return kinds.flatMap((k, i) => (k.type === "invalid" ? [invalidAnswer(messages[i], k.reason)] : []));
}

/** Writes a JSON-RPC error body with an HTTP status. */
export function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  // Headers already sent (an SSE stream is open): no status can be written any more, only the end.
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

/** Reads and parses a JSON body of at most `limit` bytes. */
export function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly status: number; readonly message: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit bytes are read and dropped: memory stays bounded and the client still gets its 413.
      if (size > limit) over = true;
      else chunks.push(chunk);
    });
    req.on("error", () => resolve({ ok: false, status: 400, message: "Bad Request: the body could not be read" }));
    req.on("end", () => {
      if (over) return resolve({ ok: false, status: 413, message: `Payload Too Large: the limit is ${limit} bytes` });
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      } catch {
        resolve({ ok: false, status: 400, message: "Parse error: the body is not valid JSON" });
      }
    });
  });
}
