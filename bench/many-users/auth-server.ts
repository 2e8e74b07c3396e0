/**
 * A scripted OAuth 2.1 authorization server on 127.0.0.1 for the many-users load test. Access
 * tokens live a few seconds; refresh tokens rotate and are single-use, and presenting one twice
 * revokes the whole grant (what real servers do on suspected replay, and what two workers
 * refreshing the same grant cause). It counts every refresh per (principal, resource, generation):
 * one generation is one expiry, so the load test wants exactly one refresh for each.
 * Hand-written because the point is to count and to misbehave on purpose; no library does that.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The pre-registered public client the workers use. */
export const CLIENT_ID = "many-users-agent";
/** The static token of the baseline phase: accepted for every principal at every server. */
export const STATIC_TOKEN_PRINCIPAL = "*static*";

/** A grant as the token endpoint returns it, in the runtime's `OAuthTokens` shape. */
export interface IssuedTokens {
  readonly accessToken: string;
  readonly tokenType: string;
  readonly refreshToken: string;
  readonly expiresAt: number;
  readonly scope: string;
  readonly issuer: string;
}

/** What the server counted. */
export interface AuthServerStats {
  /** Refresh requests received (any outcome). */
  readonly refreshes: number;
  /** Distinct expiries (refresh-token generations) that were refreshed at least once. */
  readonly expiries: number;
  /** Expiries refreshed more than once, and the most refreshes one expiry got. */
  readonly duplicated: number;
  readonly maxPerExpiry: number;
  /**
   * Of `duplicated`, those whose first refresh came from a worker (`x-tw-worker` header) killed
   * between the first and the second refresh: that worker got the rotated token and died before
   * storing it, so the next worker could only present the spent one. Two live workers racing
   * refresh within the same moment, with no kill in between.
   */
  readonly duplicatedAfterKill: number;
  /** Grants revoked because a refresh token came back a second time. */
  readonly revokedGrants: number;
  /** Refreshes refused with invalid_grant. */
  readonly invalidGrant: number;
  /** Authorization-code grants after the seed (users who had to consent again). */
  readonly reauthorizations: number;
}

/** The running server. */
export interface ScriptedAuthServer {
  /** The issuer, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Issues a first grant for `principal` at `resource`, as if the user had consented before the run. */
  seed(principal: string, resource: string): IssuedTokens;
  /** Mints the static token for the baseline phase. */
  staticToken(): string;
  /** The grants revoked for refresh-token reuse, as "principal resource". */
  revokedGrants(): string[];
  /** Whose token this is, for `resource`; undefined when unknown, expired, revoked or for another resource. */
  principalOf(accessToken: string, resource: string): string | undefined;
  /** The counts; `killed` maps the pid of each worker killed during the run to the time of the kill. */
  stats(killed?: ReadonlyMap<string, number>): AuthServerStats;
  close(): Promise<void>;
}

interface Grant {
  readonly principal: string;
  readonly resource: string;
  generation: number;
  revoked: boolean;
}
interface Access {
  readonly grant: Grant | undefined;
  readonly expiresAt: number;
}
interface Refresh {
  readonly grant: Grant;
  readonly generation: number;
  used: boolean;
}

/** Options of `startScriptedAuthServer`. */
export interface ScriptedAuthServerOptions {
  /** Access-token lifetime, whole seconds (expires_in is in seconds). Default 4. */
  readonly accessTtlSeconds?: number;
}

const token = () => randomBytes(18).toString("base64url");

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
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

/** Starts the server on an ephemeral loopback port. */
export async function startScriptedAuthServer(options: ScriptedAuthServerOptions = {}): Promise<ScriptedAuthServer> {
  const ttl = options.accessTtlSeconds ?? 4;
  const access = new Map<string, Access>();
  const refresh = new Map<string, Refresh>();
  const codes = new Map<string, { principal: string; resource: string; challenge: string; redirectUri: string }>();
  /** Refresh requests per "principal resource generation", and the worker that sent the first. */
  const perExpiry = new Map<string, number>();
  const first = new Map<string, { readonly sender: string; readonly at: number }>();
  const secondAt = new Map<string, number>();
  const revoked: string[] = [];
  const counts = { refreshes: 0, revokedGrants: 0, invalidGrant: 0, reauthorizations: 0 };
  let issuer = "";

  function issue(grant: Grant): IssuedTokens {
    const accessToken = token();
    const refreshToken = token();
    const expiresAt = Date.now() + ttl * 1000;
    access.set(accessToken, { grant, expiresAt });
    refresh.set(refreshToken, { grant, generation: grant.generation, used: false });
    return { accessToken, tokenType: "Bearer", refreshToken, expiresAt, scope: "tools", issuer };
  }
  function answer(res: ServerResponse, t: IssuedTokens): void {
    send(res, 200, {
      access_token: t.accessToken,
      token_type: t.tokenType,
      expires_in: ttl,
      refresh_token: t.refreshToken,
      scope: t.scope,
    });
  }
  function refused(res: ServerResponse, error: string, description: string): void {
    send(res, 400, { error, error_description: description });
  }

  function refreshGrant(form: URLSearchParams, res: ServerResponse, sender: string): void {
    counts.refreshes++;
    const entry = refresh.get(form.get("refresh_token") ?? "");
    if (!entry) {
      counts.invalidGrant++;
      refused(res, "invalid_grant", "unknown refresh token");
      return;
    }
    const { grant } = entry;
    const key = `${grant.principal} ${grant.resource} ${entry.generation}`;
    perExpiry.set(key, (perExpiry.get(key) ?? 0) + 1);
    if (!first.has(key)) first.set(key, { sender, at: Date.now() });
    else if (!secondAt.has(key)) secondAt.set(key, Date.now());
    if (entry.used && !grant.revoked) {
      // Reuse of a rotated refresh token: treat as theft, revoke the whole grant (OAuth 2.1 §4.3.1).
      grant.revoked = true;
      counts.revokedGrants++;
      revoked.push(`${grant.principal} ${grant.resource}`);
    }
    if (grant.revoked || entry.used) {
      counts.invalidGrant++;
      refused(res, "invalid_grant", "refresh token already used; grant revoked");
      return;
    }
    entry.used = true;
    grant.generation++;
    answer(res, issue(grant));
  }

  function codeGrant(form: URLSearchParams, res: ServerResponse): void {
    const code = codes.get(form.get("code") ?? "");
    codes.delete(form.get("code") ?? "");
    const verifier = form.get("code_verifier") ?? "";
    const expected = code && createHash("sha256").update(verifier).digest("base64url");
    if (!code || expected !== code.challenge || form.get("redirect_uri") !== code.redirectUri) {
      refused(res, "invalid_grant", "bad code, verifier or redirect_uri");
      return;
    }
    counts.reauthorizations++;
    answer(res, issue({ principal: code.principal, resource: code.resource, generation: 0, revoked: false }));
  }

  /** The scripted user: consents at once as `login_hint` (a real AS would show a page). */
  function authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    const principal = q.get("login_hint");
    const redirectUri = q.get("redirect_uri");
    if (!principal || !redirectUri || q.get("client_id") !== CLIENT_ID || q.get("code_challenge_method") !== "S256") {
      send(res, 400, { error: "invalid_request" });
      return;
    }
    const code = token();
    codes.set(code, { principal, resource: q.get("resource") ?? "", challenge: q.get("code_challenge") ?? "", redirectUri });
    const back = new URL(redirectUri);
    back.searchParams.set("code", code);
    back.searchParams.set("state", q.get("state") ?? "");
    back.searchParams.set("iss", issuer);
    res.writeHead(302, { location: back.href });
    res.end();
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
        authorization_response_iss_parameter_supported: true,
      });
    }
    if (req.method === "GET" && url.pathname === "/authorize") return authorize(url, res);
    if (req.method !== "POST" || url.pathname !== "/token") return send(res, 404, { error: "not_found" });
    const form = await readForm(req);
    if (form.get("client_id") !== CLIENT_ID) return send(res, 401, { error: "invalid_client" });
    const sender = String(req.headers["x-tw-worker"] ?? "");
    if (form.get("grant_type") === "refresh_token") return refreshGrant(form, res, sender);
    if (form.get("grant_type") === "authorization_code") return codeGrant(form, res);
    return refused(res, "unsupported_grant_type", "only refresh_token and authorization_code");
  }

  const server = createServer((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { error: "server_error" });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: issuer,
    seed: (principal, resource) => issue({ principal, resource, generation: 0, revoked: false }),
    staticToken() {
      const t = token();
      access.set(t, { grant: undefined, expiresAt: Number.POSITIVE_INFINITY });
      return t;
    },
    revokedGrants: () => [...revoked],
    principalOf(accessToken, resource) {
      const entry = access.get(accessToken);
      if (!entry || entry.expiresAt <= Date.now()) return undefined;
      if (!entry.grant) return STATIC_TOKEN_PRINCIPAL;
      if (entry.grant.revoked || entry.grant.resource !== resource) return undefined;
      return entry.grant.principal;
    },
    stats(killed = new Map<string, number>()) {
      const values = [...perExpiry.values()];
      const twice = [...perExpiry].filter(([, n]) => n > 1);
      return {
        ...counts,
        expiries: values.length,
        duplicated: twice.length,
        duplicatedAfterKill: twice.filter(([key]) => {
          const by = first.get(key);
          const killedAt = killed.get(by?.sender ?? "");
          return by !== undefined && killedAt !== undefined && by.at <= killedAt && killedAt <= (secondAt.get(key) ?? 0);
        }).length,
        maxPerExpiry: values.reduce((a, b) => Math.max(a, b), 0),
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
