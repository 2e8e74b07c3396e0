/**
 * The OAuth side of the vault product test, on 127.0.0.1: a scripted authorization server
 * (pre-registered public client, short-lived access tokens, rotating single-use refresh tokens, a
 * grant the test can revoke) and a real streamable HTTP MCP server (the runtime's `createToolServer`
 * + `serveHttp`, behind the many-users load test's front door) that accepts only live tokens of
 * this AS. Every token issued is kept, so the test can look for it where it must not be.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type GuardedServer, startGuardedServer } from "../../bench/many-users/guarded-server.js";

/** The client id the user program is configured with. */
export const VAULT_CLIENT_ID = "product-agent";

/** A grant as the runtime's `OAuthTokens` (what a consent callback would store). */
export interface SeedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly tokenType: "Bearer";
  readonly expiresAt: number;
  readonly issuer: string;
}

/** The running world. */
export interface VaultWorld {
  readonly issuer: string;
  /** The MCP endpoint, the protected resource. */
  readonly mcpUrl: string;
  /** A first grant for `principal`, its access token already expired (so the first call refreshes). */
  seed(principal: string): SeedTokens;
  /** A live access token of `principal`'s grant, for a control that uses it where it does not belong. */
  liveToken(principal: string): string;
  /** Revokes `principal`'s grant (the user removed the app): its tokens stop working, its refresh gets invalid_grant. */
  revoke(principal: string): void;
  /** Every access and refresh token issued so far. */
  issued(): readonly string[];
  /** Refresh requests per principal (refused ones included), and the invalid_grant answers. */
  refreshes(): { readonly [principal: string]: number };
  invalidGrants(): number;
  /** Each accepted bearer token's owner, in order, as the MCP server's front door saw them. */
  seen(): readonly string[];
  /** `tools/call`s that passed the token check, and those whose token belonged to another principal than the call claims. */
  calls(): number;
  foreign(): number;
  close(): Promise<void>;
}

interface Grant {
  readonly principal: string;
  revoked: boolean;
}

/** Access tokens live this long: under the OAuth provider's default 60 s refresh skew, so every connection refreshes. */
const TTL_SECONDS = 30;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
      if (body.length > 65_536) req.destroy(new Error("token request too large"));
    });
    req.on("end", () => resolve(new URLSearchParams(body)));
    req.on("error", reject);
  });
}

/** Starts the authorization server and the guarded MCP server on ephemeral loopback ports. */
export async function startVaultWorld(): Promise<VaultWorld> {
  const grants = new Map<string, Grant>();
  const access = new Map<string, { grant: Grant; expiresAt: number }>();
  const refresh = new Map<string, { grant: Grant; used: boolean }>();
  const issued: string[] = [];
  const refreshes: { [principal: string]: number } = Object.create(null);
  const seen: string[] = [];
  let invalidGrants = 0;
  let issuer = "";
  const token = () => randomBytes(18).toString("base64url");

  function issue(grant: Grant, lifetimeMs = TTL_SECONDS * 1000): SeedTokens {
    const accessToken = token();
    const refreshToken = token();
    const expiresAt = Date.now() + lifetimeMs;
    access.set(accessToken, { grant, expiresAt });
    refresh.set(refreshToken, { grant, used: false });
    issued.push(accessToken, refreshToken);
    return { accessToken, refreshToken, tokenType: "Bearer", expiresAt, issuer };
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", issuer);
    if (req.method === "GET" && url.pathname.startsWith("/.well-known/")) {
      return send(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (req.method !== "POST" || url.pathname !== "/token") return send(res, 404, { error: "not_found" });
    const form = await readForm(req);
    if (form.get("client_id") !== VAULT_CLIENT_ID) return send(res, 401, { error: "invalid_client" });
    if (form.get("grant_type") !== "refresh_token") return send(res, 400, { error: "unsupported_grant_type" });
    const entry = refresh.get(form.get("refresh_token") ?? "");
    const principal = entry?.grant.principal ?? "(unknown)";
    refreshes[principal] = (refreshes[principal] ?? 0) + 1;
    if (!entry || entry.used || entry.grant.revoked) {
      invalidGrants++;
      return send(res, 400, { error: "invalid_grant", error_description: "refresh token revoked or already used" });
    }
    entry.used = true;
    const t = issue(entry.grant);
    send(res, 200, { access_token: t.accessToken, token_type: "Bearer", expires_in: TTL_SECONDS, refresh_token: t.refreshToken });
  }

  const as = createServer((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { error: "server_error" });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => as.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(as.address() as AddressInfo).port}`;

  const mcp: GuardedServer = await startGuardedServer({
    name: "crm",
    issuer,
    check: (accessToken) => {
      const entry = access.get(accessToken);
      if (!entry || entry.expiresAt <= Date.now() || entry.grant.revoked) return undefined;
      seen.push(entry.grant.principal);
      return entry.grant.principal;
    },
  });

  return {
    issuer,
    mcpUrl: mcp.url,
    seed(principal) {
      const grant: Grant = { principal, revoked: false };
      grants.set(principal, grant);
      return issue(grant, -60_000);
    },
    liveToken(principal) {
      const grant = grants.get(principal);
      if (!grant) throw new Error(`no grant for ${principal}`);
      return issue(grant).accessToken;
    },
    revoke(principal) {
      const grant = grants.get(principal);
      if (!grant) throw new Error(`no grant for ${principal}`);
      grant.revoked = true;
    },
    issued: () => [...issued],
    refreshes: () => ({ ...refreshes }),
    invalidGrants: () => invalidGrants,
    seen: () => [...seen],
    calls: () => mcp.stats().calls,
    foreign: () => mcp.stats().foreign,
    async close() {
      await mcp.close();
      as.closeAllConnections();
      await new Promise<void>((resolve) => as.close(() => resolve()));
    },
  };
}
