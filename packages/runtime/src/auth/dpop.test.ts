import { createHash, createPublicKey, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createDpopKey, createDpopProof } from "./dpop.js";
import { createOAuthProvider } from "./oauth-provider.js";

const SERVER = "http://mcp.test/mcp";

function decode(jwt: string) {
  const [h, p, sig] = jwt.split(".") as [string, string, string];
  const header = JSON.parse(Buffer.from(h, "base64url").toString()) as {
    jwk: { kty: string; crv: string; x: string; y: string };
    typ: string;
    alg: string;
  };
  const claims = JSON.parse(Buffer.from(p, "base64url").toString()) as { [key: string]: unknown };
  const key = createPublicKey({ key: header.jwk, format: "jwk" });
  const valid = verify("sha256", Buffer.from(`${h}.${p}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(sig, "base64url"));
  return { header, claims, valid };
}

describe("DPoP proofs (RFC 9449)", () => {
  it("are ES256 JWTs with the public jwk, a fresh jti, htm, htu without query, ath and nonce", async () => {
    const key = await createDpopKey();
    const a = decode(await createDpopProof(key, { method: "post", url: "http://mcp.test/mcp?x=1#f", accessToken: "tok", nonce: "n1" }));
    const b = decode(await createDpopProof(key, { method: "GET", url: "http://mcp.test/mcp" }));
    expect(a.valid && b.valid).toBe(true);
    expect(a.header).toMatchObject({ typ: "dpop+jwt", alg: "ES256", jwk: { kty: "EC", crv: "P-256" } });
    expect(Object.keys(a.header.jwk).sort()).toEqual(["crv", "kty", "x", "y"]); // no private part
    expect(a.claims).toMatchObject({
      htm: "POST",
      htu: "http://mcp.test/mcp",
      nonce: "n1",
      ath: createHash("sha256").update("tok").digest("base64url"),
    });
    expect(b.claims.ath).toBeUndefined();
    expect(a.claims.jti).not.toBe(b.claims.jti);
  });
});

describe("OAuth provider with DPoP", () => {
  function world() {
    const tokenRequests: { dpop: string | undefined; form: { [key: string]: string } }[] = [];
    let nonceRequired = true;
    const json = (status: number, body: unknown, headers: { [key: string]: string } = {}) =>
      new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
    const fetchFn = async (input: string, init: RequestInit = {}) => {
      const headers = (init.headers ?? {}) as { [key: string]: string };
      if (input === "http://mcp.test/.well-known/oauth-protected-resource/mcp")
        return json(200, { resource: SERVER, authorization_servers: ["http://as.test"] });
      if (input === "http://as.test/.well-known/oauth-authorization-server") {
        return json(200, {
          issuer: "http://as.test",
          authorization_endpoint: "http://as.test/authorize",
          token_endpoint: "http://as.test/token",
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
          dpop_signing_alg_values_supported: ["ES256"],
        });
      }
      if (input === "http://as.test/token") {
        const proof = headers.dpop;
        tokenRequests.push({ dpop: proof, form: Object.fromEntries(new URLSearchParams(String(init.body))) });
        if (nonceRequired && proof && decode(proof).claims.nonce !== "as-nonce")
          return json(400, { error: "use_dpop_nonce" }, { "dpop-nonce": "as-nonce" });
        nonceRequired = false;
        return json(200, { access_token: "bound-token", token_type: "DPoP", expires_in: 3600 });
      }
      return json(404, {});
    };
    return { fetchFn, tokenRequests };
  }

  it("proves possession at the token endpoint (retrying once with the AS nonce) and on every request", async () => {
    const w = world();
    const p = createOAuthProvider({
      allowInsecureHttp: true,
      serverUrl: SERVER,
      clientId: "c",
      redirectUri: "http://localhost/cb",
      fetch: w.fetchFn,
      authorizationHandler: async (url) => ({ code: "x", state: new URL(url).searchParams.get("state") ?? "" }),
    });
    expect(await p.handleChallenge({ url: SERVER, status: 401, wwwAuthenticate: "DPoP" })).toBe(true);
    expect(w.tokenRequests).toHaveLength(2);
    expect(w.tokenRequests.map((r) => r.dpop && decode(r.dpop).claims.nonce)).toEqual([undefined, "as-nonce"]);
    expect(decode(w.tokenRequests[1]?.dpop as string).claims).toMatchObject({ htm: "POST", htu: "http://as.test/token" });

    const headers = (await p.authorize({ url: SERVER, method: "POST" })) as { authorization: string; dpop: string };
    expect(headers.authorization).toBe("DPoP bound-token");
    const proof = decode(headers.dpop);
    expect(proof.valid).toBe(true);
    expect(proof.claims).toMatchObject({ htm: "POST", htu: SERVER, ath: createHash("sha256").update("bound-token").digest("base64url") });

    // The resource server asks for a nonce: retry with it, without a new authorization flow.
    const nonceChallenge = { url: SERVER, status: 401, wwwAuthenticate: 'DPoP error="use_dpop_nonce"', dpopNonce: "rs-1" };
    expect(await p.handleChallenge(nonceChallenge)).toBe(true);
    const next = (await p.authorize({ url: SERVER, method: "POST" })) as { dpop: string };
    expect(decode(next.dpop).claims.nonce).toBe("rs-1");
    expect(await p.handleChallenge(nonceChallenge)).toBe(false); // same nonce again: no loop
    expect(w.tokenRequests).toHaveLength(2);
  });

  it("dpop: false keeps Bearer even when the AS supports DPoP", async () => {
    const w = world();
    const p = createOAuthProvider({
      allowInsecureHttp: true,
      serverUrl: SERVER,
      clientId: "c",
      dpop: false,
      redirectUri: "http://localhost/cb",
      fetch: w.fetchFn,
      authorizationHandler: async (url) => ({ code: "x", state: new URL(url).searchParams.get("state") ?? "" }),
    });
    expect(await p.handleChallenge({ url: SERVER, status: 401, wwwAuthenticate: "Bearer" })).toBe(false);
    expect(p.lastError?.message).toMatch(/token type DPoP is not supported/);
    expect(w.tokenRequests[0]?.dpop).toBeUndefined();
  });
});
