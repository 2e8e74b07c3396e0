/**
 * One registration when the AS forgot the application's dynamic client and several providers of one
 * process refresh at once: the memory and file stores serialize registrations per issuer, and a
 * store without `registerExclusive` is serialized by the provider itself. The cross-process case
 * (the vault's advisory lock) is in test/vault/register.test.ts.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFileTokenStore } from "./file-token-store.js";
import { createOAuthProvider } from "./oauth-provider.js";
import { createKeyedLock, createMemoryTokenStore, type TokenStore } from "./token-store.js";

const AS = "http://as.test";

/** An AS that forgot `seed`: refreshes with it get invalid_client; registrations are counted. */
function forgetfulAs() {
  const counts = { registrations: 0, invalidClient: 0, refreshed: 0 };
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(200, {
        issuer: AS,
        authorization_endpoint: `${AS}/authorize`,
        token_endpoint: `${AS}/token`,
        registration_endpoint: `${AS}/register`,
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (url.pathname === "/register") {
      counts.registrations++;
      // Answered after a turn of the event loop, so that the other refusals arrive meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
      return json(201, { client_id: `dyn-${counts.registrations}`, token_endpoint_auth_method: "none" });
    }
    const form = new URLSearchParams(String(init?.body ?? ""));
    if (form.get("client_id") === "seed") {
      counts.invalidClient++;
      return json(401, { error: "invalid_client" });
    }
    counts.refreshed++;
    return json(200, { access_token: `new-${form.get("refresh_token")}`, token_type: "Bearer", expires_in: 3600 });
  };
  return { fetchFn, counts };
}

/** Six providers (six servers) over `store`, each with an expired grant, authorizing at once. */
async function refreshAll(store: TokenStore) {
  const as = forgetfulAs();
  await store.saveClient(AS, { clientId: "seed", tokenEndpointAuthMethod: "none", issuer: AS, source: "dynamic" });
  const providers = [];
  for (let i = 0; i < 6; i++) {
    const serverUrl = `http://mcp${i}.test/mcp`;
    await store.saveTokens(serverUrl, { accessToken: `a${i}`, refreshToken: `r${i}`, tokenType: "Bearer", expiresAt: 1, issuer: AS });
    providers.push(
      createOAuthProvider({
        serverUrl,
        store,
        fetch: as.fetchFn,
        allowInsecureHttp: true,
        redirectUri: "http://127.0.0.1:1/cb",
        authorizationHandler: () => Promise.reject(new Error("no user here")),
      }),
    );
  }
  const headers = await Promise.all(providers.map((p, i) => p.authorize({ url: `http://mcp${i}.test/mcp`, method: "POST" })));
  return { headers, counts: as.counts };
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe("a forgotten dynamic client, refreshed by many providers of one process at once", () => {
  it("memory store: one registration, every refresh goes through with the new client", async () => {
    const store = createMemoryTokenStore();
    const { headers, counts } = await refreshAll(store);
    expect(counts).toEqual({ registrations: 1, invalidClient: 6, refreshed: 6 });
    expect(headers.map((h) => h.authorization)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `Bearer new-r${i}`));
    expect((await store.loadClient(AS))?.clientId).toBe("dyn-1");
  });

  it("file store: one registration, and the new client is in the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tw-client-"));
    dirs.push(dir);
    const { counts } = await refreshAll(createFileTokenStore(join(dir, "tokens.json")));
    expect(counts.registrations).toBe(1);
    expect((await createFileTokenStore(join(dir, "tokens.json")).loadClient(AS))?.clientId).toBe("dyn-1");
  });

  it("a store without registerExclusive: the provider serializes per issuer itself", async () => {
    const { registerExclusive: _none, ...plain } = createMemoryTokenStore();
    const { counts } = await refreshAll(plain);
    expect(counts).toEqual({ registrations: 1, invalidClient: 6, refreshed: 6 });
  });
});

describe("createKeyedLock", () => {
  it("runs one key's steps one after another, other keys meanwhile, and goes on after a failure", async () => {
    const lock = createKeyedLock();
    const order: string[] = [];
    let release: () => void = () => undefined;
    const first = lock("a", () => new Promise<void>((resolve) => (release = resolve)).then(() => order.push("a1")));
    const second = lock("a", async () => order.push("a2"));
    await lock("b", async () => order.push("b1"));
    expect(order).toEqual(["b1"]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["b1", "a1", "a2"]);
    await expect(lock("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await lock("a", async () => "after")).toBe("after");
  });
});
