/**
 * The provider's view of its token store: a store that throws (a database down, a key that does not
 * decrypt) fails the request as a transport fault that names the server's resource and the error's
 * type, never the store's own message, which may name the user (a vault names the principal, which
 * must not reach a failure the model reads, a trace or a log). The full error goes to `onError`,
 * the application's own channel.
 */
import { WireFaultError } from "../transport/http-exchange.js";
import { OAuthError } from "./oauth-util.js";
import type { TokenStore } from "./token-store.js";

function storeFault(what: string, error: unknown, report: ((e: OAuthError) => void) | undefined): never {
  // OAuth refusals and wire faults raised inside an exclusive refresh are the AS's, not the store's.
  if (error instanceof OAuthError || error instanceof WireFaultError) throw error;
  report?.(new OAuthError("token_store_failed", `token store: ${(error as Error)?.message ?? String(error)}`));
  const e = error as { name?: unknown; code?: unknown } | null;
  const name = typeof e?.name === "string" && /^[A-Za-z]{1,40}$/.test(e.name) ? e.name : "Error";
  const code = typeof e?.code === "string" && /^[A-Za-z0-9_]{1,40}$/.test(e.code) ? ` ${e.code}` : "";
  throw new WireFaultError({ type: "transport", code: "ETOKENSTORE", message: `the token store failed ${what} (${name}${code})` });
}

/** Wraps `store` so that its failures reach the request as a fault without the store's message. */
export function guardStore(store: TokenStore, report: ((e: OAuthError) => void) | undefined): TokenStore {
  const guard = async <R>(what: string, op: () => R | Promise<R>): Promise<R> => {
    try {
      return await op();
    } catch (error) {
      return storeFault(what, error, report);
    }
  };
  const exclusive = store.refreshExclusive?.bind(store);
  const guarded: TokenStore = {
    loadTokens: (r) => guard(`reading the tokens for ${r}`, () => store.loadTokens(r)),
    saveTokens: (r, t) => guard(`writing the tokens for ${r}`, () => store.saveTokens(r, t)),
    loadClient: (i) => guard(`reading the client registration at ${i}`, () => store.loadClient(i)),
    saveClient: (i, c) => guard(`writing the client registration at ${i}`, () => store.saveClient(i, c)),
  };
  const registering = store.registerExclusive?.bind(store);
  if (exclusive) guarded.refreshExclusive = (r, refresh) => guard(`refreshing the tokens for ${r}`, () => exclusive(r, refresh));
  if (registering) guarded.registerExclusive = (i, register) => guard(`registering the client at ${i}`, () => registering(i, register));
  return guarded;
}
