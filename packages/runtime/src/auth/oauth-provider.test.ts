/**
 * OAuth provider tests against a scriptable fake of a protected MCP resource and its authorization
 * servers, served through `fetch`. Every request is recorded so tests assert on the wire.
 */
import { verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type AuthorizationResponse, createOAuthProvider, type OAuthProviderOptions } from "./oauth-provider.js";
import { requestIdJag } from "./token-exchange.js";
import { createMemoryTokenStore } from "./token-store.js";

interface FakeRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: { readonly [key: string]: string };
  readonly body: string;
  readonly form: { readonly [key: string]: string };
}

interface FakeAs {
  /** Issuer URL, e.g. http://as.test or http://as.test/tenant1. */
  issuer: string;
  /** Where its metadata is served (full URL). Undefined: none (404 everywhere). */
  metadataUrl?: string;
  /** Extra or overridden metadata fields. */
  metadata?: { [key: string]: unknown };
  /** iss in the redirect: correct (default), wrong, omit, or normalized (trailing slash). */
  iss?: "correct" | "wrong" | "omit" | "normalized";
  /** Registration answer. */
  register?: (body: { [key: string]: unknown }) => { [key: string]: unknown };
  /** Token answer (default: a fresh token with the requested or authorized scope). */
  token?: (form: { [key: string]: string }, req: FakeRequest) => { status?: number; body: { [key: string]: unknown } };
}

interface FakeWorldOptions {
  serverUrl: string;
  /** PRM location (full URL) and body; undefined: no PRM anywhere. */
  prm?: { url: string; body: { [key: string]: unknown } };
  servers: FakeAs[];
}

function createFakeWorld(options: FakeWorldOptions) {
  const requests: FakeRequest[] = [];
  let tokenCounter = 0;
  let lastAuthorizeScope: string | undefined;
  const asByIssuer = () => new Map(options.servers.map((s) => [s.issuer, s]));

  function metadataOf(as: FakeAs): { [key: string]: unknown } {
    return {
      issuer: as.issuer,
      authorization_endpoint: `${as.issuer}/authorize`,
      token_endpoint: `${as.issuer}/token`,
      registration_endpoint: `${as.issuer}/register`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      ...as.metadata,
    };
  }

  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

  async function fetchFn(input: string, init: RequestInit = {}): Promise<Response> {
    const headers: { [key: string]: string } = {};
    for (const [k, v] of Object.entries((init.headers as Record<string, string>) ?? {})) headers[k.toLowerCase()] = v;
    const body = typeof init.body === "string" ? init.body : "";
    const form = headers["content-type"]?.includes("x-www-form-urlencoded") ? Object.fromEntries(new URLSearchParams(body)) : {};
    const req: FakeRequest = { url: input, method: init.method ?? "GET", headers, body, form };
    requests.push(req);
    if (options.prm && input === options.prm.url) return json(200, options.prm.body);
    for (const as of options.servers) {
      if (as.metadataUrl && input === as.metadataUrl) return json(200, metadataOf(as));
      const meta = metadataOf(as);
      if (input === meta.registration_endpoint && req.method === "POST") {
        const parsed = JSON.parse(body) as { [key: string]: unknown };
        return json(201, as.register ? as.register(parsed) : { client_id: `dcr-${as.issuer}`, client_secret: "dcr-secret" });
      }
      if (input === meta.token_endpoint && req.method === "POST") {
        if (as.token) {
          const out = as.token(form, req);
          return json(out.status ?? 200, out.body);
        }
        tokenCounter++;
        return json(200, {
          access_token: `token-${tokenCounter}`,
          token_type: "Bearer",
          expires_in: 3600,
          ...((form.scope ?? lastAuthorizeScope) ? { scope: form.scope ?? lastAuthorizeScope } : {}),
        });
      }
    }
    return json(404, { error: "not_found" });
  }

  /** Plays the AS's authorization endpoint: records the request and builds the redirect parameters. */
  async function authorizationHandler(url: string): Promise<AuthorizationResponse> {
    const u = new URL(url);
    requests.push({ url, method: "GET", headers: {}, body: "", form: Object.fromEntries(u.searchParams) });
    const as = [...asByIssuer().values()].find((s) => url.startsWith(`${s.issuer}/authorize`));
    lastAuthorizeScope = u.searchParams.get("scope") ?? undefined;
    const state = u.searchParams.get("state") ?? undefined;
    const mode = as?.iss ?? "correct";
    const iss =
      mode === "correct" ? as?.issuer : mode === "wrong" ? "https://evil.example" : mode === "normalized" ? `${as?.issuer}/` : undefined;
    return { code: "the-code", ...(state ? { state } : {}), ...(iss ? { iss } : {}) };
  }

  return {
    fetch: fetchFn,
    authorizationHandler,
    requests,
    urls: () => requests.map((r) => `${r.method} ${r.url.split("?")[0]}`),
    authorizeRequests: () => requests.filter((r) => r.url.includes("/authorize")).map((r) => r.form),
    tokenRequests: () => requests.filter((r) => r.url.endsWith("/token")),
    registerRequests: () =>
      requests.filter((r) => r.url.endsWith("/register")).map((r) => JSON.parse(r.body) as { [key: string]: unknown }),
  };
}

const SERVER = "http://mcp.test/mcp";
const PRM_PATH = "http://mcp.test/.well-known/oauth-protected-resource/mcp";
const challenge401 = (www: string | null) => ({ url: SERVER, status: 401, wwwAuthenticate: www });

function standardWorld(overrides: Partial<FakeAs> = {}, prmExtra: { [key: string]: unknown } = {}) {
  return createFakeWorld({
    serverUrl: SERVER,
    prm: { url: PRM_PATH, body: { resource: SERVER, authorization_servers: ["http://as.test"], ...prmExtra } },
    servers: [{ issuer: "http://as.test", metadataUrl: "http://as.test/.well-known/oauth-authorization-server", ...overrides }],
  });
}
function provider(world: ReturnType<typeof createFakeWorld>, extra: Partial<OAuthProviderOptions> = {}) {
  return createOAuthProvider({
    allowInsecureHttp: true,
    serverUrl: SERVER,
    redirectUri: "http://localhost:3000/callback",
    authorizationHandler: world.authorizationHandler,
    fetch: world.fetch,
    ...extra,
  });
}

describe("discovery", () => {
  it("uses resource_metadata from WWW-Authenticate first, then AS metadata; never the root PRM", async () => {
    const world = standardWorld();
    const p = provider(world);
    expect(await p.authorize({ url: SERVER, method: "POST" })).toEqual({});
    expect(await p.handleChallenge(challenge401(`Bearer resource_metadata="${PRM_PATH}"`))).toBe(true);
    expect(world.urls().slice(0, 2)).toEqual([`GET ${PRM_PATH}`, "GET http://as.test/.well-known/oauth-authorization-server"]);
    expect(await p.authorize({ url: SERVER, method: "POST" })).toEqual({ authorization: "Bearer token-1" });
  });

  it("falls back from the path-suffixed PRM to the root one, and tries tenant AS URLs in the spec's order", async () => {
    const world = createFakeWorld({
      serverUrl: SERVER,
      prm: {
        url: "http://mcp.test/.well-known/oauth-protected-resource",
        body: { resource: "http://mcp.test", authorization_servers: ["http://as.test/tenant1"] },
      },
      servers: [{ issuer: "http://as.test/tenant1", metadataUrl: "http://as.test/tenant1/.well-known/openid-configuration" }],
    });
    const p = provider(world);
    expect(await p.handleChallenge(challenge401("Bearer"))).toBe(true);
    expect(world.urls().slice(0, 5)).toEqual([
      `GET ${PRM_PATH}`,
      "GET http://mcp.test/.well-known/oauth-protected-resource",
      "GET http://as.test/.well-known/oauth-authorization-server/tenant1",
      "GET http://as.test/.well-known/openid-configuration/tenant1",
      "GET http://as.test/tenant1/.well-known/openid-configuration",
    ]);
    expect(world.urls()).not.toContain("GET http://as.test/.well-known/oauth-authorization-server");
    // RFC 8707: the PRM resource goes in both the authorization and the token request.
    expect(world.authorizeRequests()[0]?.resource).toBe("http://mcp.test");
    expect(world.tokenRequests()[0]?.form.resource).toBe("http://mcp.test");
  });

  it("without PRM (2025-03-26) uses RFC 8414 at the server origin, and default endpoints when that is missing too", async () => {
    const world = createFakeWorld({ serverUrl: SERVER, servers: [{ issuer: "http://mcp.test" }] });
    const p = provider(world);
    expect(await p.handleChallenge(challenge401(null))).toBe(true);
    expect(world.urls()).toContain("GET http://mcp.test/.well-known/oauth-authorization-server");
    expect(world.urls()).toContain("POST http://mcp.test/register");
    expect(world.urls()).toContain("POST http://mcp.test/token");
  });

  it("without PRM, takes the issuer from origin metadata even when it has a path (2025-03-26 servers)", async () => {
    const world = createFakeWorld({
      serverUrl: SERVER,
      servers: [
        {
          issuer: "http://mcp.test/oauth",
          metadataUrl: "http://mcp.test/.well-known/oauth-authorization-server",
          metadata: { issuer: "http://mcp.test/oauth" },
        },
      ],
    });
    const p = provider(world);
    expect(await p.handleChallenge(challenge401(null))).toBe(true);
    expect(world.urls()).toContain("POST http://mcp.test/oauth/token");
    expect((await p.tokens())?.issuer).toBe("http://mcp.test/oauth");
  });

  it("rejects a PRM whose resource is another server, and AS metadata whose issuer differs", async () => {
    const errors: string[] = [];
    const mismatch = standardWorld({}, { resource: "https://evil.example/mcp" });
    const p1 = provider(mismatch, { onError: (e) => errors.push(e.code) });
    expect(await p1.handleChallenge(challenge401(null))).toBe(false);
    expect(p1.lastError?.code).toBe("resource_mismatch");
    expect(mismatch.authorizeRequests()).toHaveLength(0);

    const issuer = standardWorld({ metadata: { issuer: "https://attacker.example" } });
    const p2 = provider(issuer, { onError: (e) => errors.push(e.code) });
    expect(await p2.handleChallenge(challenge401(null))).toBe(false);
    expect(issuer.authorizeRequests()).toHaveLength(0);
    expect(issuer.registerRequests()).toHaveLength(0);
    expect(errors).toEqual(["resource_mismatch", "issuer_mismatch"]);
  });

  it("refuses to proceed when the AS does not advertise PKCE S256", async () => {
    const world = standardWorld({ metadata: { code_challenge_methods_supported: undefined } });
    const p = provider(world);
    expect(await p.handleChallenge(challenge401(null))).toBe(false);
    expect(p.lastError?.code).toBe("pkce_unsupported");
    expect(world.authorizeRequests()).toHaveLength(0);
  });
});

describe("safety rails", () => {
  it("refuses plain-http AS endpoints off loopback unless allowed; loopback http is fine", async () => {
    const world = standardWorld();
    const strict = createOAuthProvider({
      serverUrl: SERVER,
      redirectUri: "http://localhost/cb",
      authorizationHandler: world.authorizationHandler,
      fetch: world.fetch,
    });
    // The default outbound policy refuses plain http off loopback before any request is sent.
    await expect(strict.handleChallenge(challenge401(null))).rejects.toMatchObject({
      fault: { type: "transport", code: "EPOLICY", message: expect.stringMatching(/plain http:\/\/ is refused except to loopback/) },
    });
    expect(strict.lastError?.code).toBe("outbound_refused");
    expect(world.requests).toHaveLength(0);
    // A policy that allows plain http still leaves the AS endpoints rail (tokens in clear) standing.
    const insecurePolicy = createOAuthProvider({
      serverUrl: SERVER,
      redirectUri: "http://localhost/cb",
      authorizationHandler: world.authorizationHandler,
      fetch: world.fetch,
      outbound: { allowInsecureHttp: true },
    });
    expect(await insecurePolicy.handleChallenge(challenge401(null))).toBe(false);
    expect(insecurePolicy.lastError?.message).toMatch(/authorization_endpoint http:\/\/as\.test must use https/);
    expect(world.authorizeRequests()).toHaveLength(0);
    const { isLoopback } = await import("./guards.js");
    expect([
      isLoopback("http://localhost:3000/x"),
      isLoopback("http://127.0.0.1/"),
      isLoopback("http://[::1]:80/"),
      isLoopback("http://10.0.0.1/"),
    ]).toEqual([true, true, true, false]);
  });

  it("an authorization step that never finishes fails after authorizationTimeoutMs instead of hanging", async () => {
    const world = standardWorld();
    const p = provider(world, { authorizationHandler: () => new Promise(() => {}), authorizationTimeoutMs: 20 });
    expect(await p.handleChallenge(challenge401(null))).toBe(false);
    expect(p.lastError?.message).toMatch(/no authorization response within 20 ms/);
  });

  it("a server that never answers fails after requestTimeoutMs instead of hanging", async () => {
    const silent = (_input: string, init?: RequestInit) =>
      new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    const p = createOAuthProvider({
      allowInsecureHttp: true,
      serverUrl: SERVER,
      grant: "client_credentials",
      clientId: "c",
      fetch: silent,
      requestTimeoutMs: 20,
    });
    expect(await p.handleChallenge(challenge401(null))).toBe(false);
    expect(p.lastError?.message).toMatch(/within 20 ms/);
  });
});

describe("authorization code flow", () => {
  it("sends PKCE S256 whose verifier matches, state, and registers dynamically with application_type", async () => {
    const world = standardWorld();
    const p = provider(world, { clientMetadata: { clientName: "tw-test" } });
    expect(await p.handleChallenge(challenge401(null))).toBe(true);
    const auth = world.authorizeRequests()[0] as { [key: string]: string };
    expect(auth).toMatchObject({ response_type: "code", client_id: "dcr-http://as.test", code_challenge_method: "S256" });
    const verifier = world.tokenRequests()[0]?.form.code_verifier as string;
    const { createHash } = await import("node:crypto");
    expect(createHash("sha256").update(verifier).digest("base64url")).toBe(auth.code_challenge);
    expect(world.registerRequests()[0]).toMatchObject({
      client_name: "tw-test",
      application_type: "native",
      redirect_uris: ["http://localhost:3000/callback"],
      grant_types: ["authorization_code", "refresh_token"],
    });
  });

  it("uses a CIMD URL as client_id when the AS supports it, without registering", async () => {
    const world = standardWorld({ metadata: { client_id_metadata_document_supported: true } });
    const p = provider(world, { clientMetadataUrl: "https://client.example/metadata.json" });
    expect(await p.handleChallenge(challenge401(null))).toBe(true);
    expect(world.authorizeRequests()[0]?.client_id).toBe("https://client.example/metadata.json");
    expect(world.registerRequests()).toHaveLength(0);
    expect(world.tokenRequests()[0]?.headers.authorization).toBeUndefined();
  });

  it.each([
    [
      "client_secret_basic",
      (r: FakeRequest) => r.headers.authorization === `Basic ${btoa("pre-id:pre secret".replace(" ", "%20"))}` && !r.form.client_secret,
    ],
    [
      "client_secret_post",
      (r: FakeRequest) => r.form.client_id === "pre-id" && r.form.client_secret === "pre secret" && !r.headers.authorization,
    ],
    ["none", (r: FakeRequest) => r.form.client_id === "pre-id" && !r.form.client_secret && !r.headers.authorization],
  ])("pre-registered client authenticates with %s as the AS dictates", async (method, check) => {
    const world = standardWorld({ metadata: { token_endpoint_auth_methods_supported: [method] } });
    const p = provider(world, { clientId: "pre-id", ...(method === "none" ? {} : { clientSecret: "pre secret" }) });
    expect(await p.handleChallenge(challenge401(null))).toBe(true);
    expect(world.registerRequests()).toHaveLength(0);
    expect(check(world.tokenRequests()[0] as FakeRequest)).toBe(true);
  });

  it("scope: WWW-Authenticate first, else PRM scopes_supported, else omitted; offline_access only when the AS lists it", async () => {
    const a = standardWorld({}, { scopes_supported: ["x:read", "x:write"] });
    await provider(a).handleChallenge(challenge401('Bearer scope="mcp:basic"'));
    expect(a.authorizeRequests()[0]?.scope).toBe("mcp:basic");
    const b = standardWorld({}, { scopes_supported: ["x:read", "x:write"] });
    await provider(b).handleChallenge(challenge401("Bearer"));
    expect(b.authorizeRequests()[0]?.scope).toBe("x:read x:write");
    const c = standardWorld();
    await provider(c).handleChallenge(challenge401("Bearer"));
    expect(c.authorizeRequests()[0]?.scope).toBeUndefined();
    const d = standardWorld({ metadata: { scopes_supported: ["mcp:basic", "offline_access"] } });
    await provider(d).handleChallenge(challenge401('Bearer scope="mcp:basic"'));
    expect(d.authorizeRequests()[0]?.scope).toBe("mcp:basic offline_access");
  });

  it.each([
    ["correct", true, true],
    ["omit", true, false],
    ["wrong", true, false],
    ["normalized", true, false],
    ["omit", false, true],
    ["wrong", false, false],
  ] as const)("iss %s (advertised %s) -> proceeds %s (RFC 9207)", async (iss, advertised, proceeds) => {
    const world = standardWorld({ iss, metadata: advertised ? { authorization_response_iss_parameter_supported: true } : {} });
    const p = provider(world);
    expect(await p.handleChallenge(challenge401(null))).toBe(proceeds);
    expect(world.authorizeRequests()).toHaveLength(1);
    expect(world.tokenRequests()).toHaveLength(proceeds ? 1 : 0);
    if (!proceeds) expect(p.lastError?.code).toBe("iss_mismatch");
  });

  it("a state that does not match is rejected", async () => {
    const world = standardWorld();
    const p = provider(world, { authorizationHandler: async () => ({ code: "c", state: "forged", iss: "http://as.test" }) });
    expect(await p.handleChallenge(challenge401(null))).toBe(false);
    expect(p.lastError?.code).toBe("state_mismatch");
  });
});

describe("step-up, retries, refresh, migration", () => {
  it("403 insufficient_scope re-authorizes with the union of scopes", async () => {
    const world = standardWorld();
    const p = provider(world);
    await p.handleChallenge(challenge401('Bearer scope="mcp:basic"'));
    await p.authorize({ url: SERVER, method: "POST" });
    await p.authorize({ url: SERVER, method: "POST" });
    const ok = await p.handleChallenge({
      url: SERVER,
      status: 403,
      wwwAuthenticate: 'Bearer error="insufficient_scope", scope="mcp:write"',
    });
    expect(ok).toBe(true);
    expect(world.authorizeRequests().map((r) => r.scope)).toEqual(["mcp:basic", "mcp:basic mcp:write"]);
    expect(await p.authorize({ url: SERVER, method: "POST" })).toEqual({ authorization: "Bearer token-2" });
  });

  it("stops when the server keeps refusing: bounded attempts, no loop", async () => {
    const world = standardWorld();
    const p = provider(world, { maxAttempts: 3 });
    const deny = { url: SERVER, status: 403, wwwAuthenticate: 'Bearer error="insufficient_scope", scope="mcp:basic"' };
    expect(await p.handleChallenge(challenge401('Bearer scope="mcp:basic"'))).toBe(true);
    for (let i = 0; i < 10; i++) {
      await p.authorize({ url: SERVER, method: "POST" });
      await p.handleChallenge(deny);
    }
    expect(world.authorizeRequests()).toHaveLength(2);
    expect(p.lastError?.code).toBe("retry_limit");
    const p2 = provider(standardWorld({ token: () => ({ body: { access_token: "t", token_type: "Bearer" } }) }), { maxAttempts: 2 });
    const results: boolean[] = [];
    for (let i = 0; i < 5; i++) results.push(await p2.handleChallenge(challenge401(null)));
    expect(results).toEqual([true, true, false, false, false]);
  });

  it("refreshes an expired token before use, sending the refresh grant with resource", async () => {
    let n = 0;
    const world = standardWorld({
      token: (form) => {
        n++;
        return {
          body: {
            access_token: `t${n}`,
            token_type: "bearer",
            expires_in: n === 1 ? 1 : 3600,
            refresh_token: form.grant_type === "refresh_token" ? "r2" : "r1",
          },
        };
      },
    });
    const store = createMemoryTokenStore();
    const p = provider(world, { store, refreshSkewSeconds: 60 });
    expect(await p.handleChallenge(challenge401(null))).toBe(true);
    expect(await p.authorize({ url: SERVER, method: "POST" })).toEqual({ authorization: "Bearer t2" });
    const refresh = world.tokenRequests()[1];
    expect(refresh?.form).toMatchObject({ grant_type: "refresh_token", refresh_token: "r1", resource: SERVER });
    expect((await store.loadTokens(SERVER))?.refreshToken).toBe("r2");
    // Concurrent requests with an expiring token share one refresh.
    n = 0;
    await p.signOut();
    expect(await p.handleChallenge(challenge401(null))).toBe(true); // token t1, expires at once
    const before = world.tokenRequests().length;
    const headers = await Promise.all([1, 2, 3].map(() => p.authorize({ url: SERVER, method: "POST" })));
    expect(world.tokenRequests().length - before).toBe(1);
    expect(new Set(headers.map((h) => (h as { authorization: string }).authorization))).toEqual(new Set(["Bearer t2"]));
    // A second provider on the same store starts from the stored token without a new flow.
    const again = provider(world, { store });
    expect(await again.authorize({ url: SERVER, method: "POST" })).toEqual({ authorization: "Bearer t2" });
  });

  it("re-registers when the protected resource moves to a new AS, never reusing the old client", async () => {
    const prm = { resource: SERVER, authorization_servers: ["http://as1.test"] };
    const world = createFakeWorld({
      serverUrl: SERVER,
      prm: { url: PRM_PATH, body: prm },
      servers: [
        {
          issuer: "http://as1.test",
          metadataUrl: "http://as1.test/.well-known/oauth-authorization-server",
          register: () => ({ client_id: "as1-client" }),
        },
        {
          issuer: "http://as2.test",
          metadataUrl: "http://as2.test/.well-known/oauth-authorization-server",
          register: () => ({ client_id: "as2-client" }),
        },
      ],
    });
    const p = provider(world);
    expect(await p.handleChallenge(challenge401(null))).toBe(true);
    await p.authorize({ url: SERVER, method: "POST" });
    await p.authorize({ url: SERVER, method: "POST" });
    prm.authorization_servers = ["http://as2.test"];
    expect(await p.handleChallenge(challenge401('Bearer error="invalid_token"'))).toBe(true);
    expect(world.registerRequests()).toHaveLength(2);
    expect(world.authorizeRequests().map((r) => r.client_id)).toEqual(["as1-client", "as2-client"]);
    expect(world.tokenRequests()[1]?.url).toBe("http://as2.test/token");
    expect(world.tokenRequests()[1]?.form.client_id).toBe("as2-client");
  });
});

describe("client_credentials", () => {
  it("with client_secret_basic", async () => {
    const world = standardWorld({ metadata: { token_endpoint_auth_methods_supported: ["client_secret_basic"] } });
    const p = createOAuthProvider({
      allowInsecureHttp: true,
      serverUrl: SERVER,
      grant: "client_credentials",
      clientId: "cc",
      clientSecret: "s3",
      fetch: world.fetch,
    });
    expect(await p.handleChallenge(challenge401(null))).toBe(true);
    const req = world.tokenRequests()[0] as FakeRequest;
    expect(req.form).toMatchObject({ grant_type: "client_credentials", resource: SERVER });
    expect(req.headers.authorization).toBe(`Basic ${btoa("cc:s3")}`);
    expect(world.authorizeRequests()).toHaveLength(0);
  });

  it("with private_key_jwt: an ES256 assertion that verifies, iss = sub = client id, aud = issuer", async () => {
    const { generateKeyPairSync } = await import("node:crypto");
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const world = standardWorld({ metadata: { token_endpoint_auth_methods_supported: ["private_key_jwt"] } });
    const p = createOAuthProvider({
      allowInsecureHttp: true,
      serverUrl: SERVER,
      grant: "client_credentials",
      clientId: "jwt-client",
      privateKeyPem: pem,
      fetch: world.fetch,
    });
    expect(await p.handleChallenge(challenge401(null))).toBe(true);
    const form = world.tokenRequests()[0]?.form as { [key: string]: string };
    expect(form.client_assertion_type).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    const [h, b, sig] = (form.client_assertion as string).split(".") as [string, string, string];
    expect(JSON.parse(Buffer.from(h, "base64url").toString())).toEqual({ alg: "ES256", typ: "JWT" });
    const claims = JSON.parse(Buffer.from(b, "base64url").toString());
    expect(claims).toMatchObject({ iss: "jwt-client", sub: "jwt-client", aud: "http://as.test" });
    const valid = verify("sha256", Buffer.from(`${h}.${b}`), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(sig, "base64url"));
    expect(valid).toBe(true);
  });

  it("jwt_bearer with a workload JWT: assertion and client_id sent, no authorization step", async () => {
    const world = standardWorld({ metadata: { grant_types_supported: ["urn:ietf:params:oauth:grant-type:jwt-bearer"] } });
    const p = createOAuthProvider({
      allowInsecureHttp: true,
      serverUrl: SERVER,
      grant: "jwt_bearer",
      clientId: "wif",
      assertion: "header.payload.sig",
      fetch: world.fetch,
    });
    expect(await p.handleChallenge(challenge401('Bearer scope="mcp:read"'))).toBe(true);
    expect(world.tokenRequests()[0]?.form).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion: "header.payload.sig",
      scope: "mcp:read",
      resource: SERVER,
      client_id: "wif",
    });
    expect(world.authorizeRequests()).toHaveLength(0);
  });

  it("jwt_bearer with an ID-JAG from RFC 8693 token exchange at the IdP (SEP-990)", async () => {
    const world = standardWorld({ metadata: { token_endpoint_auth_methods_supported: ["client_secret_basic"] } });
    const idp: { [key: string]: string }[] = [];
    const fetchFn = async (input: string, init?: RequestInit) => {
      if (input === "http://idp.test/token") {
        idp.push(Object.fromEntries(new URLSearchParams(String(init?.body))));
        return new Response(
          JSON.stringify({ access_token: "id-jag", issued_token_type: "urn:ietf:params:oauth:token-type:id-jag", token_type: "N_A" }),
          {
            status: 200,
          },
        );
      }
      return world.fetch(input, init);
    };
    const p = createOAuthProvider({
      allowInsecureHttp: true,
      serverUrl: SERVER,
      grant: "jwt_bearer",
      clientId: "xaa",
      clientSecret: "xaa-secret",
      fetch: fetchFn,
      assertion: ({ issuer, resource, scope }) =>
        requestIdJag({
          tokenEndpoint: "http://idp.test/token",
          idToken: "id-token",
          clientId: "idp-client",
          audience: issuer,
          resource,
          ...(scope ? { scope } : {}),
          fetch: fetchFn,
        }),
    });
    expect(await p.handleChallenge(challenge401(null))).toBe(true);
    expect(idp[0]).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      subject_token: "id-token",
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      audience: "http://as.test",
      resource: SERVER,
      client_id: "idp-client",
    });
    const token = world.tokenRequests()[0] as FakeRequest;
    expect(token.form).toMatchObject({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: "id-jag" });
    expect(token.headers.authorization).toBe(`Basic ${btoa("xaa:xaa-secret")}`);
    await expect(
      requestIdJag({
        tokenEndpoint: "http://nowhere.test/token",
        idToken: "t",
        clientId: "c",
        audience: "a",
        resource: "r",
        fetch: world.fetch,
      }),
    ).rejects.toThrow(/token exchange refused by the IdP: HTTP 404/);
  });

  it("bad configuration is a clear error at creation", () => {
    expect(() => createOAuthProvider({ serverUrl: SERVER })).toThrow(/authorizationHandler is required/);
    expect(() => createOAuthProvider({ allowInsecureHttp: true, serverUrl: SERVER, grant: "client_credentials" })).toThrow(
      /clientId is required/,
    );
    expect(() => createOAuthProvider({ allowInsecureHttp: true, serverUrl: SERVER, grant: "jwt_bearer", clientId: "x" })).toThrow(
      /assertion is required/,
    );
  });
});
