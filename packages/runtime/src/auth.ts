/**
 * @toolwright/runtime/auth: OAuth 2.1 for the HTTP callers (`createHttpCaller({ auth })`):
 * the provider, discovery, token stores, client metadata documents, ID-JAG token exchange, and the
 * `AuthProvider` seam for your own scheme. `createFileTokenStore` and `startLoopbackRedirect` run on
 * Node only; the typings need no `@types/node`.
 * @packageDocumentation
 */
export type { ClientMetadataDocumentOptions } from "./auth/cimd.js";
export { clientMetadataDocument } from "./auth/cimd.js";
export type { AuthorizationServerMetadata, FetchLike, ProtectedResourceMetadata } from "./auth/discovery.js";
export { discoverAuthorizationServer, discoverProtectedResource } from "./auth/discovery.js";
export { createFileTokenStore } from "./auth/file-token-store.js";
export type { LoopbackRedirect, LoopbackRedirectOptions } from "./auth/loopback-redirect.js";
export { startLoopbackRedirect } from "./auth/loopback-redirect.js";
export type { ClientMetadata } from "./auth/oauth-flows.js";
export type { AssertionContext, AuthorizationResponse, OAuthProvider, OAuthProviderOptions } from "./auth/oauth-provider.js";
export { createOAuthProvider } from "./auth/oauth-provider.js";
export type { WwwAuthenticateChallenge } from "./auth/oauth-util.js";
export { OAuthError, parseWwwAuthenticate } from "./auth/oauth-util.js";
export type { IdJagRequest } from "./auth/token-exchange.js";
export { JWT_BEARER_GRANT, requestIdJag } from "./auth/token-exchange.js";
export type { ExclusiveRefresh, ExclusiveRegistration, OAuthClientInfo, OAuthTokens, TokenStore } from "./auth/token-store.js";
export { createMemoryTokenStore } from "./auth/token-store.js";
export type { AuthChallenge, AuthProvider } from "./transport/auth-provider.js";
