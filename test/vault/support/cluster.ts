/**
 * One throwaway PostgreSQL per vault test file (the durable tests' `startThrowawayPostgres`), a
 * fresh schema per test, and the callers the tests use: an HTTP caller whose OAuth provider keeps
 * its tokens in a given store and that says, in `x-principal`, whom it calls for (the scripted MCP
 * server counts calls whose token belongs to someone else).
 */
import { randomBytes } from "node:crypto";
import { startThrowawayPostgres, type ThrowawayPostgres } from "@toolwright/dbos/postgres";
import { createOAuthProvider, type OAuthError, type OAuthProviderOptions, type TokenStore } from "@toolwright/runtime/auth";
import { createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterAll, afterEach, beforeAll, expect } from "vitest";

/** A fresh 32-byte key as a vault key. */
export function newKey(id: string): { id: string; key: string } {
  return { id, key: randomBytes(32).toString("base64") };
}

/** Registers the file's PostgreSQL; `url()` is its `postgres` database, `schema()` a fresh schema name. */
export function useVaultPostgres() {
  let pg: ThrowawayPostgres | undefined;
  let n = 0;
  beforeAll(async () => {
    pg = await startThrowawayPostgres();
  }, 90_000);
  afterAll(async () => {
    const pid = pg?.pid();
    await pg?.stop();
    expect(pid, "the postmaster pid").toBeGreaterThan(0);
  });
  return {
    url: () => (pg as ThrowawayPostgres).url("postgres"),
    schema: () => `tw_vault_${process.pid}_${n++}`,
  };
}

const open: HttpCaller[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** A caller for `principal` to `url` whose provider stores in `store`; OAuth errors are collected. */
export function callerFor(url: string, store: TokenStore, principal: string, extra: Partial<OAuthProviderOptions> = {}) {
  const errors: OAuthError[] = [];
  let handlerCalls = 0;
  const auth = createOAuthProvider({
    serverUrl: url,
    store,
    redirectUri: "http://127.0.0.1:1/callback",
    // A backend has no browser: a user who must consent is told so by the application, not here.
    authorizationHandler: async () => {
      handlerCalls++;
      throw new Error("the user is not present");
    },
    onError: (e) => errors.push(e),
    ...extra,
  });
  const caller = createHttpCaller({
    url,
    name: "whoami-server",
    era: "legacy",
    auth,
    headers: { "x-principal": principal },
    notificationStream: false,
    timeoutMs: 20_000,
  });
  open.push(caller);
  return { caller, auth, errors, handlerCalls: () => handlerCalls };
}
