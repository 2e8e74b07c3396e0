/**
 * What a provider keeps per authorization server: the discovered metadata (fetched once per
 * issuer), the private_key_jwt signing key (imported once), and the DPoP key with the AS's last
 * nonce (one key per provider: a DPoP-bound token only works with the key it was bound to).
 */
import type { AuthorizationServerMetadata, FetchLike } from "./discovery.js";
import { discoverAuthorizationServer } from "./discovery.js";
import { createDpopKey } from "./dpop.js";
import { requireSecureEndpoints } from "./guards.js";
import { importPrivateKey, isJwtAlgorithm } from "./jwt.js";
import type { AssertionKey, TokenDpop } from "./oauth-flows.js";
import type { OAuthProviderOptions } from "./oauth-options.js";
import { OAuthError } from "./oauth-util.js";

/** Cached access to authorization servers for one provider. */
export interface AuthServerAccess {
  /**
   * The issuer's metadata; `legacy` allows the 2025-03-26 default endpoints when none is published;
   * `fresh` fetches it again (the cache keeps the old one when that fails).
   */
  metadata(issuer: string, legacy: boolean, fresh?: boolean): Promise<AuthorizationServerMetadata>;
  /** Metadata fetched before, without a request (a refresh may go on when rediscovery fails). */
  cached(issuer: string): AuthorizationServerMetadata | undefined;
  /** The private_key_jwt key, when one is configured. */
  assertionKey(): Promise<AssertionKey | undefined>;
  /** The DPoP state for token requests to `as`, when DPoP is in use for it (made on first use). */
  dpopFor(as: AuthorizationServerMetadata): Promise<TokenDpop | undefined>;
  /** The DPoP state, if any token request used it. */
  readonly dpop: TokenDpop | undefined;
}

/** Creates the cache; `headers` go with every discovery request (MCP-Protocol-Version). */
export function createAuthServerAccess(
  options: OAuthProviderOptions,
  fetchFn: FetchLike,
  headers: { readonly [key: string]: string },
): AuthServerAccess {
  const byIssuer = new Map<string, AuthorizationServerMetadata>();
  let assertionKey: AssertionKey | undefined;
  let tokenDpop: TokenDpop | undefined;
  return {
    async metadata(issuer, legacy, fresh = false) {
      const cached = byIssuer.get(issuer);
      if (cached && !fresh) return cached;
      const found = await discoverAuthorizationServer(fetchFn, issuer, { allowFallback: legacy, headers });
      if (!options.allowInsecureHttp) requireSecureEndpoints(found);
      byIssuer.set(issuer, found);
      return found;
    },
    cached: (issuer) => byIssuer.get(issuer),
    async assertionKey() {
      if (!options.privateKeyPem) return undefined;
      if (assertionKey) return assertionKey;
      const alg = options.signingAlgorithm ?? "ES256";
      if (!isJwtAlgorithm(alg)) throw new OAuthError("bad_configuration", `signing algorithm ${alg} is not supported`);
      assertionKey = { key: await importPrivateKey(options.privateKeyPem, alg), alg };
      return assertionKey;
    },
    async dpopFor(as) {
      // ES256 is the one DPoP algorithm we sign with; an AS that does not list it gets Bearer requests.
      if (options.dpop === false || !as.dpopSigningAlgValuesSupported?.includes("ES256")) return undefined;
      tokenDpop ??= { key: await createDpopKey(), nonce: undefined };
      return tokenDpop;
    },
    get dpop() {
      return tokenDpop;
    },
  };
}
