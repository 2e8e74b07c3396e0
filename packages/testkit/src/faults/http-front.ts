/**
 * An HTTP front for faults only HTTP has: a small proxy on 127.0.0.1 in front of any streamable
 * HTTP MCP server. It forwards every request as it came (SSE answers stream through) and, for
 * the `tools/call` POSTs the plan names, destroys the socket, holds the answer, answers 404 for
 * the session or 401 with a Bearer challenge. Hand-written on `node:http` because a proxy library
 * would buffer or rewrite the SSE stream this must pass through untouched.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createFaultSchedule, type Fault, type FaultPlan, type FaultSchedule } from "./plan.js";

/** Options for `startFaultProxy`. */
export interface FaultProxyOptions {
  /** The MCP endpoint to front, e.g. `http://127.0.0.1:4000/mcp`; only http on a loopback host. */
  readonly target: string;
  readonly plan: FaultPlan;
  /** The `resource_metadata` URL an `unauthorized` challenge names (your scripted authorization setup); default: the target's well-known URL. */
  readonly resourceMetadata?: string;
}

/** A running fault proxy. */
export interface FaultProxy {
  /** The proxy's MCP endpoint (same path as the target). */
  readonly url: string;
  readonly faults: FaultSchedule;
  /** `Authorization` values the `unauthorized` fault refused, in order. */
  readonly refusedTokens: readonly (string | undefined)[];
  /** Stops listening and drops held or open connections. */
  close(): Promise<void>;
}

const PROXY_FAULTS: ReadonlySet<string> = new Set([
  "latency",
  "is-error",
  "rpc-error",
  "crash",
  "hang",
  "session-404",
  "unauthorized",
  "http-status",
]);
const LOOPBACK: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);
const MAX_BODY = 4 * 1024 * 1024;

/**
 * Starts a fault proxy on an ephemeral 127.0.0.1 port. Faults that need the server's answer
 * (`bad-output`, `input-required`, `list-changed`) belong on the host: a `TypeError` says so.
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = new URL(options.target);
  if (target.protocol !== "http:" || !LOOPBACK.has(target.hostname)) {
    throw new TypeError(`startFaultProxy: target ${target.href} must be http on a loopback host`);
  }
  const misplaced = options.plan.find((rule) => !PROXY_FAULTS.has(rule.fault?.kind));
  if (misplaced)
    throw new TypeError(`startFaultProxy: fault "${misplaced.fault.kind}" (tool ${misplaced.tool}) belongs on the host: use withFaults`);
  const schedule = createFaultSchedule(options.plan);
  const refusedTokens: (string | undefined)[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer | undefined) => {
    const headers = { ...req.headers, host: target.host };
    if (body) headers["content-length"] = String(body.length);
    const upstream = httpRequest(
      { host: target.hostname.replace(/^\[|\]$/g, ""), port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    // The client went away: the upstream request goes too, as it would without the proxy.
    res.on("close", () => upstream.destroy());
    upstream.on("error", () => res.destroy());
    upstream.end(body);
  };

  function apply(fault: Fault, req: IncomingMessage, res: ServerResponse, body: Buffer, id: unknown, tool: string): void {
    const json = (status: number, payload: unknown, headers: { [key: string]: string } = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(payload));
    };
    switch (fault.kind) {
      case "latency": {
        const timer = setTimeout(() => {
          timers.delete(timer);
          forward(req, res, body);
        }, fault.ms);
        timers.add(timer);
        return;
      }
      case "is-error":
        json(200, {
          jsonrpc: "2.0",
          id,
          result: { content: [{ type: "text", text: fault.text ?? `injected tool error (${tool})` }], isError: true },
        });
        return;
      case "rpc-error":
        json(200, {
          jsonrpc: "2.0",
          id,
          error: {
            code: fault.code,
            message: fault.message ?? `injected error ${fault.code}`,
            ...(fault.data === undefined ? {} : { data: fault.data }),
          },
        });
        return;
      case "crash":
        req.socket.destroy(); // mid-call: the request was read, no byte of an answer is written
        return;
      case "hang":
        return; // held until the client gives up or the proxy closes
      case "http-status":
        res.writeHead(fault.status, { "content-type": "text/plain", ...fault.headers });
        res.end(fault.body ?? "");
        return;
      case "session-404":
        // As a restarted server would: the session is really ended upstream, then reported unknown.
        endUpstreamSession(target, req.headers["mcp-session-id"]);
        json(404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } });
        return;
      case "unauthorized": {
        const resource = options.resourceMetadata ?? `${target.origin}/.well-known/oauth-protected-resource${target.pathname}`;
        refusedTokens.push(req.headers.authorization);
        json(401, { error: "invalid_token" }, { "www-authenticate": `Bearer error="invalid_token", resource_metadata="${resource}"` });
        return;
      }
      default:
        throw new TypeError(`startFaultProxy: fault "${fault.kind}" cannot be applied over HTTP`);
    }
  }

  const server = createServer((req, res) => {
    if (req.method !== "POST") return forward(req, res, undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const call = toolCallOf(body);
      // A token the `unauthorized` fault refused stays refused: only a refreshed one goes through.
      if (
        call &&
        refusedTokens.length > 0 &&
        refusedTokens.includes(req.headers.authorization) &&
        req.headers.authorization !== undefined
      ) {
        return apply({ kind: "unauthorized" }, req, res, body, call.id, call.tool);
      }
      const hit = call ? schedule.next(call.tool) : undefined;
      if (hit && call) return apply(hit.fault, req, res, body, call.id, call.tool);
      forward(req, res, body);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}${target.search}`,
    faults: schedule,
    refusedTokens,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The tool name and id of a single `tools/call` request body, or undefined. */
function toolCallOf(body: Buffer): { readonly tool: string; readonly id: unknown } | undefined {
  try {
    const message = JSON.parse(body.toString("utf8")) as { method?: unknown; id?: unknown; params?: { name?: unknown } };
    if (message?.method !== "tools/call" || message.id === undefined) return undefined;
    return { tool: typeof message.params?.name === "string" ? message.params.name : "", id: message.id };
  } catch {
    return undefined; // not JSON: the server answers it as it would
  }
}

/** Best effort: DELETE the session upstream, so the 404 tells the truth. */
function endUpstreamSession(target: URL, session: string | string[] | undefined): void {
  if (typeof session !== "string") return;
  const req = httpRequest({
    host: target.hostname.replace(/^\[|\]$/g, ""),
    port: target.port,
    method: "DELETE",
    path: `${target.pathname}${target.search}`,
    headers: { host: target.host, "mcp-session-id": session },
  });
  req.on("error", () => {});
  req.on("response", (answer) => answer.resume());
  req.end();
}
