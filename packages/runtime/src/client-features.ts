/**
 * @toolwright/runtime/client-features: the handlers a caller answers server requests with
 * (elicitation in form and URL mode, roots, sampling, logging). Pass `createClientFeatures(...)` as
 * a caller's `clientFeatures`; a server request nobody handles gets -32601. Needs no Node APIs.
 * @packageDocumentation
 */
export type {
  ClientFeatures,
  ClientFeaturesOptions,
  LogEntry,
  Notifier,
  Root,
  RootsOptions,
  SamplingOptions,
  SamplingRequest,
  SamplingResult,
} from "./client-features/client-features.js";
export { checkRoots, createClientFeatures } from "./client-features/client-features.js";
export type {
  ElicitAction,
  ElicitationOptions,
  ElicitResult,
  ElicitValue,
  FormElicitation,
  UrlElicitation,
} from "./client-features/elicitation.js";
export { applySchemaDefaults, URL_ELICITATION_REQUIRED, urlElicitationsRequired } from "./client-features/elicitation.js";
