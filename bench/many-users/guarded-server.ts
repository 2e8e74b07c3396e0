/**
 * A streamable HTTP MCP server for the many-users load test: the runtime's `createToolServer` +
 * `serveHttp`, behind a front door that plays the resource server's part of OAuth. The front door
 * answers protected-resource metadata (RFC 9728), refuses a missing, expired or revoked token with
 * a 401 challenge, and, for every `tools/call`, compares the principal the token belongs to with
 * the principal the call claims (the `principal` argument): a difference is a call made with
 * another user's token, which the load test wants never to see. Then it forwards the request.
 * A front door rather than a hook because `serveHttp` has no authentication seam, and a real
 * deployment puts token checks in a gateway in front of the MCP server in the same way.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createToolServer, serveHttp } from "@toolwright/runtime/server";
import { STATIC_TOKEN_PRINCIPAL } from "./auth-server.js";

/** Decides whose a bearer token is (the scripted AS's `principalOf`). */
export type TokenCheck = (accessToken: string, resource: string) => string | undefined;

/** What the front door counted. */
export interface GuardStats {
  /** `tools/call` requests that passed the token check. */
  readonly calls: number;
  /** Calls whose token belongs to another principal than the call claims. */
  readonly foreign: number;
  /** Requests refused with 401 (no, expired, revoked or wrong-resource token). */
  readonly unauthorized: number;
  /** The first few foreign uses, as "claimed <- token owner", for the report. */
  readonly examples: readonly string[];
}

/** A running guarded server. */
export interface GuardedServer {
  readonly name: string;
  /** The MCP endpoint clients use (the front door). */
  readonly url: string;
  stats(): GuardStats;
  close(): Promise<void>;
}

/** Options of `startGuardedServer`. */
export interface GuardedServerOptions {
  readonly name: string;
  /** The authorization server's issuer, published in the resource metadata. */
  readonly issuer: string;
  readonly check: TokenCheck;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > 1_048_576) req.destroy(new Error("request too large"));
      else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** The principal a `tools/call` claims, or undefined for any other message. */
function claimedPrincipal(body: Buffer): string | undefined {
  try {
    const message = JSON.parse(body.toString("utf8")) as { method?: unknown; params?: { arguments?: { principal?: unknown } } };
    if (message?.method !== "tools/call") return undefined;
    const claimed = message.params?.arguments?.principal;
    return typeof claimed === "string" ? claimed : "";
  } catch {
    return undefined;
  }
}

/** Starts the tool server and its front door, both on ephemeral loopback ports. */
export async function startGuardedServer(options: GuardedServerOptions): Promise<GuardedServer> {
  const tools = createToolServer({
    name: options.name,
    version: "1.0.0",
    tools: [
      {
        name: "whoami",
        description: "Echoes the principal the call is made for and the server that answered.",
        inputSchema: { type: "object", properties: { principal: { type: "string" } }, required: ["principal"] },
        handler: (args: { principal: string }) => ({ structuredContent: { principal: args.principal, server: options.name } }),
      },
    ],
  });
  const upstream = await serveHttp(tools, { maxSessions: 20_000, sessionIdleMs: 120_000 });
  const counts = { calls: 0, foreign: 0, unauthorized: 0 };
  const examples: string[] = [];
  let front = "";
  const resource = () => `${front}/mcp`;

  function challenge(res: ServerResponse): void {
    counts.unauthorized++;
    const metadata = `${front}/.well-known/oauth-protected-resource/mcp`;
    res.writeHead(401, {
      "www-authenticate": `Bearer error="invalid_token", resource_metadata="${metadata}"`,
      "content-type": "application/json",
    });
    res.end(JSON.stringify({ error: "invalid_token" }));
  }

  function forward(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const headers: { [name: string]: string | string[] | undefined } = { ...req.headers, host: `127.0.0.1:${upstream.port}` };
    // The body was read whole; GET and DELETE carry none.
    if (req.method === "POST") {
      delete headers["transfer-encoding"];
      headers["content-length"] = String(body.length);
    }
    const out = request({ host: "127.0.0.1", port: upstream.port, path: "/mcp", method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.on("close", () => out.destroy());
    out.end(body);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path?.startsWith("/.well-known/oauth-protected-resource")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ resource: resource(), authorization_servers: [options.issuer], scopes_supported: ["tools"] }));
      return;
    }
    if (path !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const auth = req.headers.authorization ?? "";
    const owner = auth.startsWith("Bearer ") ? options.check(auth.slice(7), resource()) : undefined;
    if (owner === undefined) return challenge(res);
    const body = req.method === "POST" ? await readBody(req) : Buffer.alloc(0);
    const claimed = claimedPrincipal(body);
    if (claimed !== undefined) {
      counts.calls++;
      if (owner !== STATIC_TOKEN_PRINCIPAL && owner !== claimed) {
        counts.foreign++;
        if (examples.length < 5) examples.push(`${claimed} <- ${owner}`);
      }
    }
    forward(req, res, body);
  }

  const door = createServer((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  door.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => door.listen(0, "127.0.0.1", resolve));
  front = `http://127.0.0.1:${(door.address() as AddressInfo).port}`;

  return {
    name: options.name,
    url: resource(),
    stats: () => ({ ...counts, examples: [...examples] }),
    async close() {
      door.closeAllConnections();
      await new Promise<void>((resolve) => door.close(() => resolve()));
      await upstream.close();
    },
  };
}
