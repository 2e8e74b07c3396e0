/**
 * Elicitation (`elicitation/create`): form and URL modes, undeclared modes refused with -32602,
 * result checking, and SEP-1034 schema defaults filled into accepted form content.
 */
import { RpcHandlerError } from "../protocol/rpc-peer.js";

/** What the user did with an elicitation. */
export type ElicitAction = "accept" | "decline" | "cancel";

/** A primitive value a form field can hold (string arrays for multi-select enums). */
export type ElicitValue = string | number | boolean | readonly string[];

/** A form-mode request: a message and a flat object schema of primitive fields. */
export interface FormElicitation {
  readonly mode: "form";
  readonly message: string;
  readonly requestedSchema: {
    readonly type?: "object";
    readonly properties: { readonly [field: string]: { readonly [key: string]: unknown } };
    readonly required?: readonly string[];
  };
  readonly _meta?: { readonly [key: string]: unknown };
}

/** A URL-mode request: the user should open `url` out of band. */
export interface UrlElicitation {
  readonly mode: "url";
  readonly message: string;
  readonly url: string;
  readonly elicitationId: string;
  readonly _meta?: { readonly [key: string]: unknown };
}

/** The answer to an elicitation. `content` only with `accept` in form mode. */
export interface ElicitResult {
  readonly action: ElicitAction;
  readonly content?: { readonly [field: string]: ElicitValue };
}

/** Elicitation options for `createClientFeatures`. Declare a mode by giving its handler. */
export interface ElicitationOptions {
  readonly form?: (request: FormElicitation, context: { readonly signal?: AbortSignal }) => ElicitResult | Promise<ElicitResult>;
  readonly url?: (request: UrlElicitation, context: { readonly signal?: AbortSignal }) => ElicitResult | Promise<ElicitResult>;
  /** Fill schema `default`s into accepted form content (SEP-1034). Default true. */
  readonly applyDefaults?: boolean;
  /** `notifications/elicitation/complete` for a URL elicitation. */
  readonly onComplete?: (elicitationId: string) => void;
}

const ACTIONS: readonly string[] = ["accept", "decline", "cancel"];

/** The `elicitation` capability object for the declared modes, or undefined when none is declared. */
export function elicitationCapability(options: ElicitationOptions | undefined): { readonly [key: string]: unknown } | undefined {
  if (!options || (!options.form && !options.url)) return undefined;
  return {
    ...(options.form ? { form: options.applyDefaults === false ? {} : { applyDefaults: true } } : {}),
    ...(options.url ? { url: {} } : {}),
  };
}

/** Returns `content` with every missing property that has a schema `default` filled in. */
export function applySchemaDefaults(
  schema: FormElicitation["requestedSchema"],
  content: { readonly [field: string]: ElicitValue } | undefined,
): { [field: string]: ElicitValue } {
  // Field names come from the server's schema: "__proto__" must stay a field.
  const out: { [field: string]: ElicitValue } = Object.assign(Object.create(null), content ?? {});
  for (const [field, property] of Object.entries(schema.properties ?? {})) {
    if (Object.hasOwn(out, field) || property === null || typeof property !== "object") continue;
    const value = property.default;
    // Only defaults that are valid elicitation values: a server's odd default (an object, NaN) is
    // not passed off as the user's answer.
    if (
      typeof value === "string" ||
      typeof value === "boolean" ||
      (typeof value === "number" && Number.isFinite(value)) ||
      (Array.isArray(value) && value.every((v) => typeof v === "string"))
    ) {
      out[field] = value as ElicitValue;
    }
  }
  return out;
}

/** -32602: the server's request is wrong (a mode we did not declare, missing params); its fault, not ours. */
function invalid(message: string): RpcHandlerError {
  return new RpcHandlerError(-32602, message);
}

/**
 * The application handler's answer, checked before it goes back to the server: a bad answer is
 * our bug, so -32603 (internal), and only `accept` in form mode may carry content.
 */
function checkResult(result: unknown, mode: "form" | "url"): ElicitResult {
  const r = result as Partial<ElicitResult> | null | undefined;
  if (typeof r !== "object" || r === null || typeof r.action !== "string" || !ACTIONS.includes(r.action)) {
    throw new RpcHandlerError(-32603, `elicitation ${mode} handler returned no valid action (accept, decline or cancel)`);
  }
  if (r.action !== "accept" || mode === "url") return { action: r.action };
  if (r.content !== undefined && (typeof r.content !== "object" || r.content === null || Array.isArray(r.content))) {
    throw new RpcHandlerError(-32603, "elicitation form handler returned content that is not an object");
  }
  return r.content === undefined ? { action: "accept" } : { action: "accept", content: r.content };
}

/** Builds the `elicitation/create` handler for the declared modes. */
export function createElicitationHandler(
  options: ElicitationOptions,
): (params: { readonly [key: string]: unknown } | undefined) => Promise<ElicitResult> {
  return async (params) => {
    const p = params ?? {};
    // No mode means form: the 2025-06-18 requests predate URL mode and carry none.
    const mode = p.mode === undefined ? "form" : p.mode;
    if (mode !== "form" && mode !== "url") throw invalid(`elicitation mode ${JSON.stringify(mode)} is not supported`);
    const message = typeof p.message === "string" ? p.message : "";
    const meta = typeof p._meta === "object" && p._meta !== null ? { _meta: p._meta as { [key: string]: unknown } } : {};
    if (mode === "url") {
      if (!options.url) throw invalid('elicitation mode "url" was not declared by this client');
      if (typeof p.url !== "string" || typeof p.elicitationId !== "string") {
        throw invalid("elicitation/create (url mode) needs string params.url and params.elicitationId");
      }
      const request: UrlElicitation = { mode: "url", message, url: p.url, elicitationId: p.elicitationId, ...meta };
      return checkResult(await options.url(request, {}), "url");
    }
    if (!options.form) throw invalid('elicitation mode "form" was not declared by this client');
    const schema = p.requestedSchema as FormElicitation["requestedSchema"] | undefined;
    if (typeof schema !== "object" || schema === null || typeof schema.properties !== "object" || schema.properties === null) {
      throw invalid("elicitation/create (form mode) needs params.requestedSchema with properties");
    }
    const request: FormElicitation = { mode: "form", message, requestedSchema: schema, ...meta };
    const result = checkResult(await options.form(request, {}), "form");
    // Defaults fill only what the user left out, and only on accept (a decline carries no content).
    if (result.action !== "accept" || options.applyDefaults === false) return result;
    return { action: "accept", content: applySchemaDefaults(schema, result.content) };
  };
}

/** JSON-RPC code of URLElicitationRequiredError (2025-11-25). */
export const URL_ELICITATION_REQUIRED = -32042;

/** The URL elicitations a URLElicitationRequiredError (-32042) failure carries; empty for any other failure. */
export function urlElicitationsRequired(failure: {
  readonly rpc?: { readonly code: number; readonly data?: unknown } | undefined;
}): UrlElicitation[] {
  if (failure.rpc?.code !== URL_ELICITATION_REQUIRED) return [];
  const list = (failure.rpc.data as { elicitations?: unknown } | undefined)?.elicitations;
  if (!Array.isArray(list)) return [];
  // Entries that are not URL elicitations are skipped, not fatal: the rest can still be shown.
  return list.flatMap((item: unknown) => {
    const e = item as { mode?: unknown; url?: unknown; elicitationId?: unknown; message?: unknown };
    if (typeof e?.url !== "string" || typeof e.elicitationId !== "string" || (e.mode !== undefined && e.mode !== "url")) return [];
    return [{ mode: "url" as const, url: e.url, elicitationId: e.elicitationId, message: typeof e.message === "string" ? e.message : "" }];
  });
}
