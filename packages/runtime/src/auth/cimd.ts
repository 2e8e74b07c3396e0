/**
 * Client ID Metadata Documents (CIMD, SEP-991): with CIMD the client_id is an https URL, and the
 * document served at that URL describes the client. This builds that document for publishing.
 */
import { OAuthError } from "./oauth-util.js";

/** What goes into a client metadata document. */
export interface ClientMetadataDocumentOptions {
  /** The https URL the document is served from; it is also the client_id. */
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUris: readonly string[];
  readonly clientUri?: string;
  readonly logoUri?: string;
  /** Default ["authorization_code", "refresh_token"]. */
  readonly grantTypes?: readonly string[];
  /** Default "native" (SEP-837). */
  readonly applicationType?: "native" | "web";
}

/** Builds the JSON document to serve at `clientId` (public client: token_endpoint_auth_method "none"). */
export function clientMetadataDocument(options: ClientMetadataDocumentOptions): { readonly [key: string]: unknown } {
  let url: URL;
  try {
    url = new URL(options.clientId);
  } catch {
    throw new OAuthError("bad_configuration", `clientId ${JSON.stringify(options.clientId)} must be an https URL`);
  }
  if (url.protocol !== "https:" || url.pathname === "/" || url.hash !== "") {
    throw new OAuthError("bad_configuration", `clientId ${options.clientId} must be an https URL with a path and no fragment`);
  }
  if (options.redirectUris.length === 0)
    throw new OAuthError("bad_configuration", "a client metadata document needs at least one redirect URI");
  return {
    client_id: options.clientId,
    client_name: options.clientName,
    redirect_uris: [...options.redirectUris],
    grant_types: [...(options.grantTypes ?? ["authorization_code", "refresh_token"])],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    application_type: options.applicationType ?? "native",
    ...(options.clientUri ? { client_uri: options.clientUri } : {}),
    ...(options.logoUri ? { logo_uri: options.logoUri } : {}),
  };
}
