/**
 * The contract between HTTP transports and authorization. The HTTP caller asks the provider for
 * headers before each request and hands it every 401/403 challenge; OAuth 2.1 implements it.
 */

import type { OutboundGuard } from "./outbound.js";

/** A 401 or 403 answer from the server, as the transport saw it. */
export interface AuthChallenge {
  readonly url: string;
  readonly status: number;
  /** The raw `WWW-Authenticate` header, if any. */
  readonly wwwAuthenticate: string | null;
  /** The `DPoP-Nonce` response header, if any (RFC 9449 §9). Optional for transports. */
  readonly dpopNonce?: string | null;
  /** The caller's outbound policy, which the provider's own requests (discovery, token) obey too. */
  readonly outbound?: OutboundGuard;
}

/** Supplies credentials to an HTTP transport. */
export interface AuthProvider {
  /** Headers to add to a request (typically `Authorization`). Never logged. */
  authorize(request: {
    readonly url: string;
    readonly method: string;
  }): Promise<{ readonly [key: string]: string }> | { readonly [key: string]: string };
  /**
   * Handles a challenge; resolve true when the request should be retried once with fresh headers.
   * May reject with a `WireFaultError` (e.g. the outbound policy refused an OAuth request): the
   * transport reports that fault for the request.
   */
  handleChallenge(challenge: AuthChallenge): Promise<boolean>;
}
