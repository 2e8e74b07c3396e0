/**
 * The provider's refresh against the `refreshExclusive` seam, with an in-memory store that plays a
 * shared one (the PostgreSQL vault has the real cross-process tests in test/vault): the newest
 * stored tokens win over a refresh, a dead grant ends the call instead of a consent, and a store
 * without the seam keeps the single-user behaviour (a new authorization).
 */
import { describe, expect, it } from "vitest";
import { WireFaultError } from "../transport/http-exchange.js";
import { createOAuthProvider } from "./oauth-provider.js";
import type { OAuthError } from "./oauth-util.js";
import { createMemoryTokenStore, type OAuthTokens, type TokenStore } from "./token-store.js";

const SERVER = "http://mcp.test/mcp";
const AS = "http://as.test";

/** A fetch for one AS: metadata, and a token endpoint answering with `token(form)`. */
function fakeAs(token: (form: URLSearchParams) => { status: number; body: unknown }) {
  const forms: URLSearchParams[] = [];
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(200, {
        issuer: AS,
        authorization_endpoint: `${AS}/authorize`,
        token_endpoint: `${AS}/token`,
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (url.pathname === "/token") {
      const form = new URLSearchParams(String(init?.body ?? ""));
      forms.push(form);
      const answer = token(form);
      return json(answer.status, answer.body);
    }
    return json(404, {});
  };
  return { fetchFn, forms };
}

const expired = (n: number): OAuthTokens => ({
  accessToken: `a${n}`,
  refreshToken: `r${n}`,
  tokenType: "Bearer",
  expiresAt: Date.now() - 1000,
  issuer: AS,
});

/** A memory store with the seam; `elsewhere` runs inside the lock before the refresh sees the row (another worker's write). */
function sharedStore(elsewhere?: (store: TokenStore) => void) {
  const store = createMemoryTokenStore();
  const results: (OAuthTokens | undefined)[] = [];
  const shared: TokenStore = {
    ...store,
    async refreshExclusive(resource, refresh) {
      elsewhere?.(store);
      const latest = await store.loadTokens(resource);
      const result = await refresh(latest);
      results.push(result);
      if (result !== latest) await store.saveTokens(resource, result);
      return result;
    },
  };
  return { shared, results };
}

function provider(store: TokenStore, fetchFn: ReturnType<typeof fakeAs>["fetchFn"], errors: OAuthError[], consents: { n: number }) {
  return createOAuthProvider({
    serverUrl: SERVER,
    store,
    fetch: fetchFn,
    allowInsecureHttp: true,
    clientId: "app",
    redirectUri: "http://127.0.0.1:1/cb",
    authorizationHandler: async () => {
      consents.n++;
      throw new Error("no user here");
    },
    onError: (e) => errors.push(e),
  });
}

describe("refresh with a shared store", () => {
  it("uses the tokens another worker stored while this one waited, sending nothing", async () => {
    const as = fakeAs(() => ({ status: 500, body: {} }));
    const { shared } = sharedStore((s) => s.saveTokens(SERVER, { ...expired(2), accessToken: "fresh", expiresAt: Date.now() + 3_600_000 }));
    await shared.saveTokens(SERVER, expired(1));
    const p = provider(shared, as.fetchFn, [], { n: 0 });
    expect(await p.authorize({ url: SERVER, method: "POST" })).toEqual({ authorization: "Bearer fresh" });
    expect(as.forms).toEqual([]);
  });

  it("refreshes with the newest stored refresh token, not the one this process loaded", async () => {
    const as = fakeAs((form) => ({
      status: 200,
      body: { access_token: `new-for-${form.get("refresh_token")}`, token_type: "Bearer", expires_in: 3600 },
    }));
    const { shared } = sharedStore((s) => s.saveTokens(SERVER, expired(7)));
    await shared.saveTokens(SERVER, expired(1));
    const p = provider(shared, as.fetchFn, [], { n: 0 });
    expect(await p.authorize({ url: SERVER, method: "POST" })).toEqual({ authorization: "Bearer new-for-r7" });
    expect(as.forms).toHaveLength(1);
  });

  it("invalid_grant: the store is told the grant is dead, the challenge fails with reauthorization_required, no consent starts", async () => {
    const as = fakeAs(() => ({ status: 400, body: { error: "invalid_grant" } }));
    const { shared, results } = sharedStore();
    await shared.saveTokens(SERVER, expired(1));
    const errors: OAuthError[] = [];
    const consents = { n: 0 };
    const p = provider(shared, as.fetchFn, errors, consents);
    expect(await p.authorize({ url: SERVER, method: "POST" })).toEqual({});
    // The challenge rejects with the call's own fault: an HTTP 401 that says why, without the URL.
    const refused = await p.handleChallenge({ url: SERVER, status: 401, wwwAuthenticate: null }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WireFaultError);
    expect((refused as WireFaultError).fault).toMatchObject({ type: "http", status: 401 });
    expect((refused as WireFaultError).message).toMatch(
      /refused to refresh this user's grant \(invalid_grant\): the user must authorize again/,
    );
    expect((refused as WireFaultError).message).not.toContain(SERVER);
    expect(results).toEqual([undefined]);
    expect(errors.map((e) => e.code)).toEqual(["reauthorization_required"]);
    expect(errors[0]?.message).toContain(SERVER);
    expect(errors[0]?.message).not.toContain("r1");
    expect(consents.n).toBe(0);
  });
});

describe("refresh with a single-user store", () => {
  it("invalid_grant drops the stored grant and falls back to a new authorization, as before", async () => {
    const as = fakeAs(() => ({ status: 400, body: { error: "invalid_grant", error_description: "revoked" } }));
    const store = createMemoryTokenStore();
    await store.saveTokens(SERVER, expired(1));
    const consents = { n: 0 };
    const p = provider(store, as.fetchFn, [], consents);
    expect(await p.authorize({ url: SERVER, method: "POST" })).toEqual({});
    expect(await store.loadTokens(SERVER)).toBeUndefined();
    await p.handleChallenge({ url: SERVER, status: 401, wwwAuthenticate: null });
    expect(consents.n).toBe(1);
  });
});
