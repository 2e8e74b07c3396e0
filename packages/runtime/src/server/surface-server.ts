/**
 * The server side of resources, resource templates, prompts, completions and resource
 * subscriptions, used by `createToolServer`: listing (with 2026-07-28 caching hints), reading by
 * exact URI or RFC 6570 template, `prompts/get` with required arguments checked and client input
 * (a request in the legacy era, an `input_required` round in 2026-07-28), `completion/complete`.
 */
import type { PromptDescriptor, ResourceContents } from "../protocol/mcp-types.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import { matchTemplate, templateVariables } from "../protocol/uri-template.js";
import { openRound, type StateCodec } from "./input-required.js";
import { MISSING_CAPABILITY } from "./modern.js";
import type { SkillsServer } from "./skills-server.js";
import { CAPABILITY_FOR } from "./tool-catalog.js";
import type { ResourceBody, ServerPrompt, ServerResourceTemplate, SurfaceContext, ToolServerOptions } from "./types.js";

/** What one surface request runs under. */
export interface SurfaceScope {
  readonly modern: boolean;
  readonly version: string;
  readonly capabilities: { readonly [key: string]: unknown };
  readonly sessionId: string | undefined;
  /** Sends a server-to-client request on this request's stream (legacy era). */
  readonly request: (method: string, params: { readonly [key: string]: unknown } | undefined, signal: AbortSignal) => Promise<unknown>;
  /** The session's resource subscriptions (legacy era). */
  readonly subscriptions: Set<string>;
  /** Aborted when the client cancels the request (`notifications/cancelled`) or the session ends. */
  readonly signal?: AbortSignal;
}

/** The surface part of a server. */
export interface SurfaceServer {
  /**
   * Capabilities to announce (`initialize` and `server/discover`: `resources`, `prompts`,
   * `completions`) for what is offered; `subscribe`/`listChanged` hold in 2026-07-28 too, through
   * `subscriptions/listen`.
   */
  readonly capabilities: { readonly [key: string]: unknown };
  /** Handles `method`, or returns `NOT_SURFACE` when it is not one of the surface's methods. */
  dispatch(method: string, params: { readonly [key: string]: unknown }, scope: SurfaceScope): unknown;
}

/** Returned by `dispatch` for methods the surface does not own. */
export const NOT_SURFACE = Symbol("not a surface method");
const INPUT_REQUIRED = Symbol("input required");
/** Default `maxUriLength`: far beyond real resource URIs, far below what a client could send. */
export const DEFAULT_MAX_URI_LENGTH = 16_384;
// The completion spec caps `values` at 100 items; `total` and `hasMore` tell the client about the rest.
const MAX_COMPLETIONS = 100;

function indexBy<T>(items: readonly T[], key: (item: T) => string, what: string): Map<string, T> {
  const out = new Map<string, T>();
  for (const item of items) {
    const k = key(item);
    if (out.has(k)) throw new TypeError(`createToolServer: duplicate ${what} ${JSON.stringify(k)}`);
    out.set(k, item);
  }
  return out;
}

function contentsOf(uri: string, mimeType: string | undefined, body: ResourceBody): ResourceContents[] {
  const mime = mimeType === undefined ? {} : { mimeType };
  if (typeof body === "string") return [{ uri, ...mime, text: body }];
  if (body instanceof Uint8Array) return [{ uri, ...mime, blob: Buffer.from(body).toString("base64") }];
  if (Array.isArray(body)) return [...(body as readonly ResourceContents[])];
  return [{ uri, ...mime, ...(body as object) } as ResourceContents];
}

/** How a refused value is named in an error: its JSON type, never its text. */
const kindOf = (value: unknown) =>
  value === null ? "null" : Array.isArray(value) ? "array" : value === undefined ? "nothing" : typeof value;

/**
 * Client-sent arguments as the declaration allows them: strings (prompt arguments and template
 * variables are strings in the spec), and only declared names. Anything else is -32602 naming each
 * offending argument, rather than "null" or "[object Object]" reaching a handler.
 */
function stringArguments(
  raw: { readonly [key: string]: unknown },
  declared: readonly { readonly name: string }[],
  what: string,
  field = "arguments",
): { [name: string]: string } {
  const out: { [name: string]: string } = Object.create(null);
  const problems: string[] = [];
  const names: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (!declared.some((a) => a.name === name)) problems.push(`"${name}" is not an argument of ${what}`);
    else if (typeof value !== "string") problems.push(`"${name}" must be a string (got ${kindOf(value)})`);
    else {
      out[name] = value;
      continue;
    }
    names.push(name);
  }
  if (problems.length > 0) throw new RpcHandlerError(-32602, `Invalid ${field} for ${what}: ${problems.join("; ")}`, { arguments: names });
  return out;
}

/** A descriptor as listed: the item without its handlers. */
const strip = (item: object, drop: readonly string[]) =>
  Object.fromEntries(Object.entries(item).filter(([k, v]) => !drop.includes(k) && typeof v !== "function"));

/** `completion/complete`: the declared argument's completer, capped at MAX_COMPLETIONS values. */
async function complete(
  params: { readonly [key: string]: unknown },
  prompts: ReadonlyMap<string, ServerPrompt>,
  templates: ReadonlyMap<string, ServerResourceTemplate>,
) {
  const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
  const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
  if (typeof argument?.name !== "string") throw new RpcHandlerError(-32602, "completion/complete needs argument.name");
  let owner: ServerPrompt | ServerResourceTemplate | undefined;
  let declared: readonly { readonly name: string }[];
  if (ref?.type === "ref/prompt" && typeof ref.name === "string") {
    owner = prompts.get(ref.name);
    declared = (owner as ServerPrompt | undefined)?.arguments ?? [];
  } else if (ref?.type === "ref/resource" && typeof ref.uri === "string") {
    owner = templates.get(ref.uri);
    declared = owner ? templateVariables(ref.uri).map((name) => ({ name })) : [];
  } else throw new RpcHandlerError(-32602, "completion/complete needs ref {type: ref/prompt, name} or {type: ref/resource, uri}");
  const what = ref.type === "ref/prompt" ? `prompt ${String(ref.name)}` : `resource template ${String(ref.uri)}`;
  if (!owner) throw new RpcHandlerError(-32602, `completion/complete: unknown ${what}`);
  // The spec's value is a string; anything else would reach the completer as "null" or "[object Object]".
  if (typeof argument.value !== "string")
    throw new RpcHandlerError(-32602, `completion/complete: argument.value must be a string (got ${kindOf(argument.value)})`, {
      argument: argument.name,
    });
  if (!declared.some((a) => a.name === argument.name))
    throw new RpcHandlerError(-32602, `completion/complete: ${what} has no argument "${argument.name}"`, { argument: argument.name });
  const rawContext = (params.context as { arguments?: unknown } | undefined)?.arguments ?? {};
  if (typeof rawContext !== "object" || rawContext === null || Array.isArray(rawContext))
    throw new RpcHandlerError(-32602, "completion/complete: context.arguments must be an object");
  const context = stringArguments(rawContext as { readonly [key: string]: unknown }, declared, what, "context.arguments");
  const completer = owner.complete?.[argument.name];
  const all = completer ? await completer(argument.value, { arguments: context }) : [];
  return { completion: { values: all.slice(0, MAX_COMPLETIONS), total: all.length, hasMore: all.length > MAX_COMPLETIONS } };
}

/** Creates the surface from the server options; throws a `TypeError` for duplicates. */
export function createSurfaceServer(options: ToolServerOptions, codec: StateCodec, skills?: SkillsServer): SurfaceServer {
  const resources = indexBy(options.resources ?? [], (r) => r.uri, "resource");
  const templates = indexBy(options.resourceTemplates ?? [], (t) => t.uriTemplate, "resource template");
  const prompts = indexBy(options.prompts ?? [], (p) => p.name, "prompt");
  // Skill files are resources, so a server with skills declares resources (SEP-2640 requires it).
  const hasResources = resources.size > 0 || templates.size > 0 || (skills?.size ?? 0) > 0;
  const capabilities: { [key: string]: unknown } = {};
  if (hasResources) capabilities.resources = { subscribe: true, listChanged: true };
  if (prompts.size > 0) capabilities.prompts = { listChanged: true };
  if (prompts.size > 0 || templates.size > 0) capabilities.completions = {};
  const maxUri = options.maxUriLength ?? DEFAULT_MAX_URI_LENGTH;
  if (!(Number.isInteger(maxUri) && maxUri > 0)) throw new TypeError("createToolServer: maxUriLength must be a positive integer");
  /** The request's uri, checked: a string within the limit (template matching is linear, but nothing needs megabytes). */
  const uriOf = (method: string, params: { readonly [key: string]: unknown }): string => {
    const uri = params.uri;
    if (typeof uri !== "string") throw new RpcHandlerError(-32602, `${method} needs a uri`);
    if (uri.length > maxUri)
      throw new RpcHandlerError(-32602, `${method}: the uri is ${uri.length} characters long; the limit is ${maxUri} (maxUriLength)`, {
        length: uri.length,
        limit: maxUri,
      });
    return uri;
  };
  const hints = (scope: SurfaceScope) => (scope.modern ? { ttlMs: options.cacheTtlMs ?? 0, cacheScope: "public" } : {});

  /** Runs a handler that may ask for input; in 2026-07-28 a missing input ends the round with `input_required`. */
  function withInput<T>(
    key: string,
    params: { readonly [key: string]: unknown },
    scope: SurfaceScope,
    run: (ctx: SurfaceContext) => T | Promise<T>,
  ) {
    const round = scope.modern ? openRound(codec, key, params) : undefined;
    const controller = new AbortController();
    // The request's own cancellation reaches the handler's signal (and its pending client requests).
    const cancel = () => controller.abort(scope.signal?.reason);
    if (scope.signal?.aborted) cancel();
    else scope.signal?.addEventListener("abort", cancel, { once: true });
    const ctx: SurfaceContext = {
      signal: controller.signal,
      sessionId: scope.sessionId,
      protocolVersion: scope.version,
      clientCapabilities: scope.capabilities,
      input(inputKey, method, body) {
        const capability = CAPABILITY_FOR[method];
        // Refused before anything is sent: a client that never declared the capability cannot answer.
        // The legacy era has no missing-capability code, so it gets -32601.
        if (capability !== undefined && scope.capabilities[capability] === undefined) {
          const data = { requiredCapabilities: { [capability]: {} } };
          const code = scope.modern ? MISSING_CAPABILITY : -32601;
          return Promise.reject(new RpcHandlerError(code, `Missing required client capability: ${capability}`, data));
        }
        if (!round) return scope.request(method, body, controller.signal);
        return round.ask(inputKey, { method, ...(body ? { params: body } : {}) });
      },
    };
    // Inside a promise even when the handler throws synchronously, so it can be raced against the round.
    const result = Promise.resolve().then(() => run(ctx));
    if (!round) return result;
    return Promise.race([result, round.blocked.then(() => INPUT_REQUIRED)]).then((value) => {
      if (value !== INPUT_REQUIRED) return value;
      // The handler waits for input this round cannot give: abort it and answer input_required; the
      // client sends the request again with the answers, and the handler runs again from the start.
      controller.abort();
      return round.result();
    });
  }

  function findResource(uri: string): { read: (ctx: SurfaceContext) => ResourceBody | Promise<ResourceBody>; mimeType?: string } {
    const fixed = resources.get(uri);
    if (fixed) return { read: fixed.read, ...(fixed.mimeType ? { mimeType: fixed.mimeType } : {}) };
    for (const template of templates.values()) {
      const variables = matchTemplate(template.uriTemplate, uri);
      if (variables)
        return { read: (ctx) => template.read(uri, variables, ctx), ...(template.mimeType ? { mimeType: template.mimeType } : {}) };
    }
    throw new RpcHandlerError(-32602, `Resource not found: ${uri}`, { uri }); // SEP-2164: -32602 with the uri
  }

  function getPrompt(params: { readonly [key: string]: unknown }, scope: SurfaceScope) {
    const name = params.name;
    const prompt = typeof name === "string" ? prompts.get(name) : undefined;
    if (!prompt)
      throw new RpcHandlerError(-32602, typeof name === "string" ? `Unknown prompt: ${name}` : "prompts/get needs a prompt name");
    const raw = params.arguments ?? {};
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw new RpcHandlerError(-32602, "prompts/get arguments must be an object");
    const args = stringArguments(raw as { readonly [key: string]: unknown }, prompt.arguments ?? [], `prompt ${prompt.name}`);
    const missing = (prompt.arguments ?? []).filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
    if (missing.length > 0)
      throw new RpcHandlerError(-32602, `Missing required argument(s) for prompt ${prompt.name}: ${missing.join(", ")}`);
    return withInput(`prompt:${prompt.name}`, { ...params, arguments: raw }, scope, (ctx) => prompt.get(args, ctx));
  }

  function dispatch(method: string, params: { readonly [key: string]: unknown }, scope: SurfaceScope): unknown {
    // A server that offers nothing of a kind does not declare it, and answers its methods -32601.
    const offered = method.startsWith("resources/")
      ? hasResources
      : method.startsWith("prompts/")
        ? prompts.size > 0
        : method === "completion/complete"
          ? "completions" in capabilities
          : false;
    if (!offered) return NOT_SURFACE;
    switch (method) {
      case "resources/list":
        return { resources: [...resources.values()].map((r) => strip(r, ["read"])).concat(skills?.listed ?? []), ...hints(scope) };
      case "resources/templates/list":
        return { resourceTemplates: [...templates.values()].map((t) => strip(t, ["read", "complete"])), ...hints(scope) };
      case "resources/read": {
        const uri = uriOf(method, params);
        const skillFile = skills?.read(uri);
        if (skillFile) return { contents: skillFile, ...hints(scope) };
        const found = findResource(uri);
        return withInput(`resource:${uri}`, params, scope, async (ctx) => {
          const body = await found.read(ctx);
          return { contents: contentsOf(uri, found.mimeType, body), ...hints(scope) };
        });
      }
      case "resources/subscribe":
      case "resources/unsubscribe": {
        const uri = uriOf(method, params);
        // Per session: notifyResourceUpdated writes only to sessions holding the uri.
        if (method === "resources/subscribe") scope.subscriptions.add(uri);
        else scope.subscriptions.delete(uri);
        return {};
      }
      case "prompts/list":
        return { prompts: [...prompts.values()].map((p) => strip(p, ["get", "complete"]) as PromptDescriptor), ...hints(scope) };
      case "prompts/get":
        return getPrompt(params, scope);
      case "completion/complete":
        return complete(params, prompts, templates);
      default:
        return NOT_SURFACE;
    }
  }

  return { capabilities, dispatch };
}
