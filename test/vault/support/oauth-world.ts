/**
 * A scripted OAuth world on 127.0.0.1 for the vault tests: an authorization server (dynamic
 * registration, refresh with rotation, client_credentials, jwt_bearer for ID-JAGs), an enterprise
 * IdP (RFC 8693 token exchange: ID token -> ID-JAG) and a protected MCP server (JSON responses)
 * whose `whoami` tool answers with the principal the presented token was issued to. It counts what
 * crossed the wire, so tests assert on requests, not on timing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the world counted. */
export interface WorldCounts {
  /** Refresh grants received, per principal (refused ones included). */
  readonly refreshes: Map<string, number>;
  /** Refresh grants refused with invalid_grant (a reused or revoked refresh token). */
  invalidGrant: number;
  /** Token requests refused with invalid_client. */
  invalidClient: number;
  registrations: number;
  clientCredentials: number;
  jwtBearer: number;
  tokenExchanges: number;
  /** Calls whose token belonged to another principal than the one the caller said (`x-principal` header). */
  crossPrincipal: number;
}

/** One `note`/`put` call the MCP server received. */
export interface WorldCall {
  /** The principal the presented token was issued to. */
  readonly tokenOf: string;
  readonly tool: string;
  readonly text: string;
  readonly key: string | null;
}

const IDEMPOTENCY_KEY = "toolwright.dev/idempotency-key";
/**
 * The MCP server's tools: `whoami`, `note` (a side effect) and `put` (declared idempotent); `hold_ms`
 * delays the answer to the first call with a given idempotency key.
 */
const TOOLS = [
  { name: "whoami", inputSchema: { type: "object" } },
  { name: "note", inputSchema: { type: "object", properties: { text: { type: "string" }, hold_ms: { type: "integer" } } } },
  {
    name: "put",
    inputSchema: { type: "object", properties: { text: { type: "string" }, hold_ms: { type: "integer" } } },
    annotations: { idempotentHint: true, readOnlyHint: false, destructiveHint: false },
  },
];

/** Options of `startOAuthWorld`. */
export interface OAuthWorldOptions {
  /** Lifetime of issued access tokens, seconds. Default 3600. */
  readonly expiresIn?: number;
  /** The machine client for client_credentials (basic auth). */
  readonly machineClient?: { readonly id: string; readonly secret: string };
  /** How long the AS takes to answer a registration, ms (a slow AS widens a race instead of hiding it). Default 0. */
  readonly registrationDelayMs?: number;
}

/** A running world. */
export interface OAuthWorld {
  readonly issuer: string;
  readonly idp: string;
  /** The MCP endpoint (`<origin>/mcp`), the protected resource. */
  readonly mcpUrl: string;
  readonly counts: WorldCounts;
  /**
   * Every `note`/`put` call the MCP server received, in arrival order: the principal its token was
   * issued to, the tool, the text and the `_meta` idempotency key (the durable takeover test reads it).
   */
  readonly calls: WorldCall[];
  /** Registers a client id the AS knows (as if registered dynamically earlier). */
  knowClient(clientId: string): void;
  /** Forgets a client id (the AS was reset): token requests with it get invalid_client. */
  forgetClient(clientId: string): void;
  /**
   * Holds the next `n` invalid_client answers until the n-th is due, then sends them all at once:
   * that many refreshes are refused at the same moment, whatever the scheduling of the workers.
   */
  holdInvalidClient(n: number): void;
  /** Advertises client_id_metadata_document_supported and accepts `clientId` (a CIMD URL) from now on. */
  supportCimd(clientId: string): void;
  /** Token requests made with each client id, refused ones included. */
  readonly clientUses: Map<string, number>;
  /** Mints a grant for `principal`: a live access token and a refresh token (as after a consent). */
  grant(principal: string, options?: { readonly expired?: boolean }): { accessToken: string; refreshToken: string; expiresAt: number };
  /** Ends every access token issued so far (the MCP server answers 401 to them): the next call refreshes. */
  expireAccessTokens(): void;
  /** Revokes a refresh token: its next use gets invalid_grant. */
  revoke(refreshToken: string): void;
  /** Makes the IdP accept an ID token for `principal`. */
  idToken(principal: string): string;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

async function listen(servers: Server[], handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => handler(req, res, body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function json(res: ServerResponse, status: number, body: unknown, headers: { [key: string]: string } = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function basicAuth(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header?.startsWith("Basic ")) return undefined;
  const [id, secret] = Buffer.from(header.slice(6), "base64").toString("utf8").split(":");
  return id === undefined || secret === undefined ? undefined : { id: decodeURIComponent(id), secret: decodeURIComponent(secret) };
}

/** Starts the world; `close()` ends every server. */
export async function startOAuthWorld(options: OAuthWorldOptions = {}): Promise<OAuthWorld> {
  const servers: Server[] = [];
  const expiresIn = options.expiresIn ?? 3600;
  const clients = new Set<string>();
  const access = new Map<string, { principal: string; expiresAt: number }>();
  const refresh = new Map<string, { principal: string; live: boolean }>();
  const idTokens = new Map<string, string>();
  const jags = new Map<string, string>();
  const counts: WorldCounts = {
    refreshes: new Map(),
    invalidGrant: 0,
    invalidClient: 0,
    registrations: 0,
    clientCredentials: 0,
    jwtBearer: 0,
    tokenExchanges: 0,
    crossPrincipal: 0,
  };
  const calls: WorldCall[] = [];
  let serial = 0;
  let cimd = false;
  const clientUses = new Map<string, number>();
  let held: { due: number; waiting: (() => void)[] } | undefined;
  const refuseClient = (res: ServerResponse) => {
    counts.invalidClient++;
    const send = () => json(res, 401, { error: "invalid_client", error_description: "unknown client" });
    if (!held) return send();
    held.waiting.push(send);
    if (held.waiting.length < held.due) return;
    const all = held.waiting;
    held = undefined;
    for (const release of all) release();
  };
  const mint = (principal: string, lifetime = expiresIn) => {
    const accessToken = `at-${principal}-${++serial}`;
    const refreshToken = `rt-${principal}-${serial}`;
    const expiresAt = Date.now() + lifetime * 1000;
    access.set(accessToken, { principal, expiresAt });
    refresh.set(refreshToken, { principal, live: true });
    return { accessToken, refreshToken, expiresAt };
  };
  const issue = (res: ServerResponse, principal: string, withRefresh: boolean) => {
    const t = mint(principal);
    json(res, 200, {
      access_token: t.accessToken,
      token_type: "Bearer",
      expires_in: expiresIn,
      ...(withRefresh ? { refresh_token: t.refreshToken } : {}),
    });
  };

  function refreshGrant(res: ServerResponse, form: { [key: string]: string }) {
    const known = refresh.get(form.refresh_token ?? "");
    const principal = known?.principal ?? "?";
    counts.refreshes.set(principal, (counts.refreshes.get(principal) ?? 0) + 1);
    clientUses.set(form.client_id ?? "", (clientUses.get(form.client_id ?? "") ?? 0) + 1);
    if (!clients.has(form.client_id ?? "")) return refuseClient(res);
    if (!known?.live) {
      counts.invalidGrant++;
      return json(res, 400, { error: "invalid_grant", error_description: "refresh token revoked or already used" });
    }
    known.live = false; // rotation: a refresh token is single-use
    issue(res, principal, true);
  }

  function tokenEndpoint(req: IncomingMessage, res: ServerResponse, form: { [key: string]: string }) {
    if (form.grant_type === "refresh_token") return refreshGrant(res, form);
    if (form.grant_type === "client_credentials") {
      counts.clientCredentials++;
      const basic = basicAuth(req.headers.authorization);
      const machine = options.machineClient;
      if (!machine || basic?.id !== machine.id || basic.secret !== machine.secret) {
        counts.invalidClient++;
        return json(res, 401, { error: "invalid_client" });
      }
      return issue(res, `machine:${machine.id}`, false);
    }
    if (form.grant_type === "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      counts.jwtBearer++;
      const principal = jags.get(form.assertion ?? "");
      if (!principal) return json(res, 400, { error: "invalid_grant", error_description: "unknown assertion" });
      return issue(res, principal, false);
    }
    json(res, 400, { error: "unsupported_grant_type" });
  }

  const issuer = await listen(servers, (req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_basic"],
        grant_types_supported: ["authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
        ...(cimd ? { client_id_metadata_document_supported: true } : {}),
      });
    }
    if (url.pathname === "/register" && req.method === "POST") {
      counts.registrations++;
      const id = `dyn-${++serial}`;
      clients.add(id);
      const answer = () => json(res, 201, { client_id: id, token_endpoint_auth_method: "none" });
      if (options.registrationDelayMs) setTimeout(answer, options.registrationDelayMs);
      else answer();
      return;
    }
    if (url.pathname === "/token" && req.method === "POST") return tokenEndpoint(req, res, Object.fromEntries(new URLSearchParams(body)));
    json(res, 404, {});
  });

  const idp = await listen(servers, (req, res, body) => {
    const form = Object.fromEntries(new URLSearchParams(body));
    if (
      new URL(req.url ?? "/", "http://x").pathname !== "/token" ||
      form.grant_type !== "urn:ietf:params:oauth:grant-type:token-exchange"
    ) {
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    counts.tokenExchanges++;
    const principal = idTokens.get(form.subject_token ?? "");
    if (!principal || form.audience !== issuer)
      return json(res, 400, { error: "invalid_grant", error_description: "subject token refused" });
    const jag = `jag-${principal}-${++serial}`;
    jags.set(jag, principal);
    json(res, 200, { access_token: jag, issued_token_type: "urn:ietf:params:oauth:token-type:id-jag", token_type: "N_A" });
  });

  const origin = await listen(servers, (req, res, body) => mcp(req, res, body));
  const mcpUrl = `${origin}/mcp`;
  function mcp(req: IncomingMessage, res: ServerResponse, body: string) {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      return json(res, 200, { resource: mcpUrl, authorization_servers: [issuer], scopes_supported: ["mcp"] });
    }
    if (req.method !== "POST") return json(res, 405, {});
    const auth = req.headers.authorization;
    const token = auth?.startsWith("Bearer ") ? access.get(auth.slice(7)) : undefined;
    if (!token || token.expiresAt <= Date.now()) {
      const prm = `${origin}/.well-known/oauth-protected-resource/mcp`;
      return json(res, 401, {}, { "www-authenticate": `Bearer resource_metadata="${prm}"` });
    }
    const claimed = req.headers["x-principal"];
    if (typeof claimed === "string" && claimed !== token.principal) counts.crossPrincipal++;
    const msg = JSON.parse(body || "{}") as {
      id?: number;
      method?: string;
      params?: { name?: string; arguments?: { text?: string; hold_ms?: number }; _meta?: { [key: string]: unknown } };
    };
    if (msg.method === "initialize") {
      return json(res, 200, {
        jsonrpc: "2.0",
        id: msg.id,
        result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "who", version: "1" } },
      });
    }
    if (msg.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    if (msg.method === "tools/list") {
      return json(res, 200, { jsonrpc: "2.0", id: msg.id, result: { tools: TOOLS } });
    }
    const tool = msg.params?.name;
    if (msg.method === "tools/call" && (tool === "note" || tool === "put")) {
      const text = String(msg.params?.arguments?.text ?? "");
      const key = msg.params?._meta?.[IDEMPOTENCY_KEY];
      const keyOf = typeof key === "string" ? key : null;
      // Only a key's first arrival is held: a call sent again after its worker died is answered at once.
      const again = keyOf !== null && calls.some((c) => c.key === keyOf);
      // Recorded on arrival, before answering: a call whose worker dies while it is held still counts.
      calls.push({ tokenOf: token.principal, tool, text, key: keyOf });
      const answer = () =>
        json(res, 200, { jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: `${tool}:${text}:${token.principal}` }] } });
      const hold = Number(msg.params?.arguments?.hold_ms ?? 0);
      if (hold > 0 && !again) setTimeout(answer, hold).unref();
      else answer();
      return;
    }
    json(res, 200, { jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: token.principal }] } });
  }

  return {
    issuer,
    idp,
    mcpUrl,
    counts,
    calls,
    knowClient: (id) => clients.add(id),
    forgetClient: (id) => clients.delete(id),
    holdInvalidClient(n) {
      held = { due: n, waiting: [] };
    },
    supportCimd(clientId) {
      cimd = true;
      clients.add(clientId);
    },
    clientUses,
    grant(principal, grantOptions = {}) {
      const t = mint(principal, grantOptions.expired ? -10 : expiresIn);
      return t;
    },
    expireAccessTokens() {
      for (const token of access.values()) token.expiresAt = 0;
    },
    revoke(refreshToken) {
      const known = refresh.get(refreshToken);
      if (known) known.live = false;
    },
    idToken(principal) {
      const token = `idt-${principal}-${++serial}`;
      idTokens.set(token, principal);
      return token;
    },
    async close() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise((resolve) => {
              s.closeAllConnections?.();
              s.close(resolve);
            }),
        ),
      );
    },
  };
}
