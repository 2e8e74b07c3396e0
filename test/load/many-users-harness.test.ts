/**
 * The checker of the many-users load test (`npm run load:many-users`, bench/many-users) is itself
 * tested here: the scripted authorization server counts refreshes per expiry and revokes a grant
 * whose refresh token comes back twice, the guarded MCP server notices a call made with another
 * principal's token, and the report fails its wants when they are not met. The load run itself is
 * a script, not a test (it takes minutes).
 */
import { createHash, randomBytes } from "node:crypto";
import { createHttpCaller } from "@toolwright/runtime/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_ID, type ScriptedAuthServer, startScriptedAuthServer } from "../../bench/many-users/auth-server.js";
import type { PhaseResult } from "../../bench/many-users/drive.js";
import { type GuardedServer, startGuardedServer } from "../../bench/many-users/guarded-server.js";
import { buildReport, percentile } from "../../bench/many-users/report.js";

let as: ScriptedAuthServer;
let mail: GuardedServer;
let files: GuardedServer;
beforeAll(async () => {
  as = await startScriptedAuthServer({ accessTtlSeconds: 30 });
  mail = await startGuardedServer({ name: "mail", issuer: as.url, check: as.principalOf });
  files = await startGuardedServer({ name: "files", issuer: as.url, check: as.principalOf });
});
afterAll(async () => {
  await mail?.close();
  await files?.close();
  await as?.close();
});

async function refresh(refreshToken: string, worker = "1"): Promise<{ status: number; body: { [key: string]: unknown } }> {
  const res = await fetch(`${as.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-tw-worker": worker },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: CLIENT_ID }),
  });
  return { status: res.status, body: (await res.json()) as { [key: string]: unknown } };
}

/** The scripted user consents at /authorize: the fields of the code grant that follows. */
async function consent(principal: string, resource: string): Promise<{ code: string; code_verifier: string; redirect_uri: string }> {
  const verifier = randomBytes(32).toString("base64url");
  const redirect = "http://127.0.0.1:9/callback";
  const at = new URL(`${as.url}/authorize`);
  for (const [k, v] of Object.entries({
    login_hint: principal,
    redirect_uri: redirect,
    client_id: CLIENT_ID,
    code_challenge_method: "S256",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    resource,
  }))
    at.searchParams.set(k, v);
  const answer = await fetch(at, { redirect: "manual" });
  const code = new URL(answer.headers.get("location") ?? redirect).searchParams.get("code") ?? "";
  return { code, code_verifier: verifier, redirect_uri: redirect };
}

describe("scripted authorization server", () => {
  it("counts one refresh per expiry, and a refresh token used twice as an extra refresh that revokes the grant", async () => {
    const before = as.stats();
    // A chain of two expiries, each refreshed once.
    const chain = await refresh(as.seed("frank", mail.url).refreshToken);
    expect((await refresh(String(chain.body.refresh_token))).status).toBe(200);
    expect(as.stats()).toMatchObject({ refreshes: before.refreshes + 2, expiries: before.expiries + 2, extra: before.extra });

    // Worker 4242 refreshes and dies with the rotated tokens (nobody ever presents them); the next
    // worker can only present the spent refresh token: a second refresh for one expiry.
    const seeded = as.seed("carol", mail.url);
    const first = await refresh(seeded.refreshToken, "4242");
    expect(first.status).toBe(200);
    const rotated = String(first.body.refresh_token);
    expect(rotated).not.toBe(seeded.refreshToken);
    const replayStarted = Date.now();
    const replay = await refresh(seeded.refreshToken);
    const replayAt = Date.now();
    expect(replay).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    const after = as.stats();
    expect(after.duplicated).toBe(before.duplicated + 1);
    expect(after.extra).toBe(before.extra + 1);
    expect(after.maxPerExpiry).toBeGreaterThanOrEqual(2);
    expect(after.revokedGrants).toBe(before.revokedGrants + 1);
    expect(as.revokedGrants()).toContain(`carol ${mail.url}`);
    // The extra refresh is explained by a kill only if worker 4242 was killed before the replay
    // arrived (a killed pid sent its refresh before dying); killed later, or another worker killed: unexplained.
    const explained = as.stats(new Map([["4242", replayStarted]]));
    expect(explained.extraAfterKill).toBe(before.extraAfterKill + 1);
    expect(explained.extraUnexplained).toBe(before.extraUnexplained);
    expect(explained.killAfterRotationMaxMs).toBeGreaterThanOrEqual(0);
    const late = as.stats(new Map([["4242", replayAt + 60_000]]));
    expect(late.extraAfterKill).toBe(before.extraAfterKill);
    expect(late.extraUnexplained).toBe(before.extraUnexplained + 1);
    expect(as.stats(new Map([["1", replayStarted]])).extraUnexplained).toBe(before.extraUnexplained + 1);
    // Revocation takes the whole grant: the rotated tokens die with it.
    expect(as.principalOf(String(first.body.access_token), mail.url)).toBeUndefined();
    expect((await refresh(rotated)).status).toBe(400);
  });

  it("an extra refresh after the rotated tokens were used is not explained by a later kill; a re-consented grant counts anew", async () => {
    const before = as.stats();
    const seeded = as.seed("erin", files.url);
    const first = await refresh(seeded.refreshToken, "5151");
    // The rotated access token reaches a server: worker 5151 had stored it, so its death explains nothing.
    expect(as.principalOf(String(first.body.access_token), files.url)).toBe("erin");
    const usedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await refresh(seeded.refreshToken)).status).toBe(400);
    const killedAfterUse = as.stats(new Map([["5151", usedAt + 1]]));
    expect(killedAfterUse.extraAfterKill).toBe(before.extraAfterKill);
    expect(killedAfterUse.extraUnexplained).toBe(before.extraUnexplained + 1);
    // A refresh token the AS never issued is an extra refresh no kill explains.
    expect((await refresh("never-issued")).status).toBe(400);
    expect(as.stats().extraUnexplained).toBe(before.extraUnexplained + 2);
    // Erin consents again: a new grant, whose first refresh is one refresh for one expiry.
    const code = await consent("erin", files.url);
    const fresh = await fetch(`${as.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", client_id: CLIENT_ID, ...code }),
    });
    const again = (await fresh.json()) as { refresh_token: string };
    expect((await refresh(again.refresh_token)).status).toBe(200);
    const last = as.stats();
    expect(last.extra).toBe(before.extra + 2);
    expect(last.expiries).toBe(before.expiries + 2);
  });

  it("binds an access token to its principal and resource", () => {
    const t = as.seed("dave", mail.url);
    expect(as.principalOf(t.accessToken, mail.url)).toBe("dave");
    expect(as.principalOf(t.accessToken, files.url)).toBeUndefined();
    expect(as.principalOf("made-up", mail.url)).toBeUndefined();
  });
});

describe("guarded MCP server", () => {
  const whoami = async (token: string | undefined, principal: string) => {
    const caller = createHttpCaller({ url: mail.url, headers: token ? { authorization: `Bearer ${token}` } : {} });
    try {
      return await caller.callTool({ name: "whoami", arguments: { principal } }, { timeoutMs: 30_000 });
    } finally {
      await caller.close();
    }
  };

  it("counts a call made with another principal's token, and not a call with the caller's own", async () => {
    const alice = as.seed("alice", mail.url);
    const bob = as.seed("bob", mail.url);
    const before = mail.stats();
    const own = await whoami(alice.accessToken, "alice");
    expect(own.ok).toBe(true);
    expect(mail.stats().foreign).toBe(before.foreign);
    const foreign = await whoami(bob.accessToken, "alice");
    expect(foreign.ok).toBe(true); // the server answers: only the front door's count shows the leak
    const after = mail.stats();
    expect(after.foreign).toBe(before.foreign + 1);
    expect(after.calls).toBe(before.calls + 2);
    expect(after.examples).toContain("alice <- bob");
  });

  it("refuses a missing token and a token minted for another server with a 401 challenge", async () => {
    const before = mail.stats().unauthorized;
    const none = await whoami(undefined, "alice");
    expect(none.ok).toBe(false);
    const elsewhere = await whoami(as.seed("alice", files.url).accessToken, "alice");
    expect(elsewhere.ok).toBe(false);
    expect(mail.stats().unauthorized).toBeGreaterThanOrEqual(before + 2);
    const res = await fetch(mail.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("resource_metadata=");
  });
});

describe("report", () => {
  const phase = (over: Partial<PhaseResult> = {}): PhaseResult => ({
    issued: 10,
    ok: 10,
    failed: 0,
    lost: 0,
    redriven: 0,
    kills: 0,
    killedPids: new Map(),
    latencies: [1, 2, 3],
    failures: new Map(),
    failedCalls: [],
    wallSeconds: 1,
    ...over,
  });
  const stats = {
    refreshes: 4,
    expiries: 4,
    duplicated: 0,
    maxPerExpiry: 1,
    extra: 0,
    extraAfterKill: 0,
    extraUnexplained: 0,
    killAfterRotationMaxMs: undefined,
    revokedGrants: 0,
    invalidGrant: 0,
    reauthorizations: 0,
  };
  const guard = { calls: 10, foreign: 0, unauthorized: 0, examples: [] };
  const failing = (rows: ReturnType<typeof buildReport>) => rows.filter((r) => r.pass === false).map((r) => r.measure);

  it("passes when every want is met and names each want that is not", () => {
    expect(failing(buildReport({ mode: "vault", auth: phase(), baseline: phase(), as: stats, guards: [guard] }))).toEqual([]);
    const bad = buildReport({
      mode: "memory",
      auth: phase({ lost: 1, failed: 2 }),
      baseline: phase(),
      as: { ...stats, refreshes: 5, duplicated: 1, maxPerExpiry: 2, extra: 1, extraUnexplained: 1 },
      guards: [{ ...guard, foreign: 1, examples: ["a <- b"] }],
    });
    expect(failing(bad)).toEqual([
      "refreshes sent per expiry (raw)",
      "  extra refreshes unexplained (a race, or a stored token lost without a kill)",
      "calls that used another principal's token",
      "calls lost",
      "calls answered with a failure",
    ]);
    // No refresh at all proves nothing: the want is not met.
    expect(
      failing(
        buildReport({ mode: "vault", auth: phase(), baseline: phase(), as: { ...stats, refreshes: 0, expiries: 0 }, guards: [guard] }),
      ),
    ).toEqual(["refreshes sent per expiry (raw)"]);
    // An extra refresh a kill explains is reported (raw 5 for 4) and passes; an unexplained one fails.
    const killed = buildReport({
      mode: "vault",
      auth: phase({ kills: 1 }),
      baseline: phase(),
      as: { ...stats, refreshes: 5, duplicated: 1, maxPerExpiry: 2, extra: 1, extraAfterKill: 1, killAfterRotationMaxMs: 3 },
      guards: [guard],
    });
    expect(failing(killed)).toEqual([]);
    expect(killed[0]?.value).toContain("1.250 (5 refreshes / 4 expiries: 1 extra");
    expect(killed[1]?.value).toContain("1 of 1 (1 kills; each killed worker had sent the expiry's first refresh, killed at most 3 ms");
  });

  it("takes nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([], 50)).toBe(0);
  });
});
