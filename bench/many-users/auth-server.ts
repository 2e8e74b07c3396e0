/**
 * A scripted OAuth 2.1 authorization server on 127.0.0.1 for the many-users load test. Access
 * tokens live a few seconds; refresh tokens rotate and are single-use, and presenting one twice
 * revokes the whole grant (what real servers do on suspected replay, and what two workers
 * refreshing the same grant cause). It counts every refresh per (grant, generation): one generation
 * is one expiry. Each extra refresh of an expiry is either explained by a worker killed while its
 * refresh was in flight (the AS rotated, the worker died before storing: no client can close that
 * window against a strict AS) or unexplained (a race or a lost write: the load test wants none).
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
  /** Refreshes beyond the first of each expiry, plus refreshes presenting a token the AS never issued. */
  readonly extra: number;
  /**
   * Of `extra`, those explained by a kill: the expiry's first refresh came from a worker
   * (`x-tw-worker` header; a killed pid sent it before its kill, though it may arrive after) killed
   * at most one access-token lifetime after the AS rotated it, no
   * token of the rotated generation was presented anywhere before that kill (the worker never
   * stored or used it), and the extra refresh came after the kill.
   */
  readonly extraAfterKill: number;
  /** Of `extra`, the rest: a race between live workers, or a stored token lost without a kill. */
  readonly extraUnexplained: number;
  /** For the explained ones: the longest time from the AS's rotation to the kill, ms (negative: it arrived after the kill; undefined: none). */
  readonly killAfterRotationMaxMs: number | undefined;
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
  /** Serial: a grant re-consented after a revocation is a new grant whose generations count anew. */
  readonly id: number;
  readonly principal: string;
  readonly resource: string;
  generation: number;
  revoked: boolean;
}
interface Access {
  readonly grant: Grant | undefined;
  readonly generation: number;
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
  /** Refresh requests per "grant generation": the worker that sent the first, and when each came. */
  const perExpiry = new Map<string, { readonly sender: string; readonly at: number[] }>();
  /** When a token of "grant generation" was first presented (an access token at a server, or its refresh token here). */
  const firstUse = new Map<string, number>();
  const used = (grant: Grant, generation: number) => {
    const key = `${grant.id} ${generation}`;
    if (!firstUse.has(key)) firstUse.set(key, Date.now());
  };
  let unknownRefreshes = 0;
  let grants = 0;
  const revoked: string[] = [];
  const counts = { refreshes: 0, revokedGrants: 0, invalidGrant: 0, reauthorizations: 0 };
  let issuer = "";

  function issue(grant: Grant): IssuedTokens {
    const accessToken = token();
    const refreshToken = token();
    const expiresAt = Date.now() + ttl * 1000;
    access.set(accessToken, { grant, generation: grant.generation, expiresAt });
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
      unknownRefreshes++;
      counts.invalidGrant++;
      refused(res, "invalid_grant", "unknown refresh token");
      return;
    }
    const { grant } = entry;
    const key = `${grant.id} ${entry.generation}`;
    const seen = perExpiry.get(key);
    if (seen) seen.at.push(Date.now());
    else perExpiry.set(key, { sender, at: [Date.now()] });
    used(grant, entry.generation);
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
    answer(res, issue({ id: grants++, principal: code.principal, resource: code.resource, generation: 0, revoked: false }));
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
    seed: (principal, resource) => issue({ id: grants++, principal, resource, generation: 0, revoked: false }),
    staticToken() {
      const t = token();
      access.set(t, { grant: undefined, generation: 0, expiresAt: Number.POSITIVE_INFINITY });
      return t;
    },
    revokedGrants: () => [...revoked],
    principalOf(accessToken, resource) {
      const entry = access.get(accessToken);
      if (!entry || entry.expiresAt <= Date.now()) return undefined;
      if (!entry.grant) return STATIC_TOKEN_PRINCIPAL;
      used(entry.grant, entry.generation);
      if (entry.grant.revoked || entry.grant.resource !== resource) return undefined;
      return entry.grant.principal;
    },
    stats(killed = new Map<string, number>()) {
      const values = [...perExpiry.values()].map((e) => e.at.length);
      let extraAfterKill = 0;
      let killAfterRotationMaxMs: number | undefined;
      for (const [key, { sender, at }] of perExpiry) {
        if (at.length < 2) continue;
        const killedAt = killed.get(sender);
        const rotatedAt = at[0] as number;
        const [grant, generation] = key.split(" ");
        const rotatedUse = firstUse.get(`${grant} ${Number(generation) + 1}`);
        const explained =
          killedAt !== undefined &&
          killedAt - rotatedAt <= ttl * 1000 &&
          (rotatedUse === undefined || rotatedUse > killedAt) &&
          at.slice(1).every((t) => t >= killedAt);
        if (!explained) continue;
        extraAfterKill += at.length - 1;
        killAfterRotationMaxMs = Math.max(killAfterRotationMaxMs ?? Number.NEGATIVE_INFINITY, killedAt - rotatedAt);
      }
      const extra = values.reduce((n, v) => n + v - 1, 0) + unknownRefreshes;
      return {
        ...counts,
        expiries: values.length,
        duplicated: values.filter((n) => n > 1).length,
        extra,
        extraAfterKill,
        extraUnexplained: extra - extraAfterKill,
        killAfterRotationMaxMs,
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
