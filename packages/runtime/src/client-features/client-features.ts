/**
 * `createClientFeatures`: server-to-client features (elicitation, roots, sampling, logging) as a
 * `{ capabilities, handlers, onNotification }` bundle that plugs into any caller's options.
 */
import type { RpcNotification } from "../protocol/json-rpc.js";
import { type RequestHandler, RpcHandlerError } from "../protocol/rpc-peer.js";
import { createElicitationHandler, type ElicitationOptions, elicitationCapability, urlElicitationsRequired } from "./elicitation.js";

/** A root the client exposes: a `file://` URI and an optional display name. */
export interface Root {
  readonly uri: string;
  readonly name?: string;
}

/** Roots options. A list, or a function asked on every `roots/list`. */
export interface RootsOptions {
  readonly list: readonly Root[] | (() => readonly Root[] | Promise<readonly Root[]>);
}

/** A `sampling/createMessage` request as the server sent it. */
export interface SamplingRequest {
  readonly messages: readonly { readonly role: "user" | "assistant"; readonly content: unknown }[];
  readonly maxTokens: number;
  readonly systemPrompt?: string;
  readonly modelPreferences?: unknown;
  readonly temperature?: number;
  readonly stopSequences?: readonly string[];
  readonly includeContext?: string;
  readonly tools?: readonly unknown[];
  readonly toolChoice?: unknown;
  readonly metadata?: unknown;
  readonly [key: string]: unknown;
}

/** The answer to `sampling/createMessage`. */
export interface SamplingResult {
  readonly role: "assistant" | "user";
  readonly content: unknown;
  readonly model: string;
  readonly stopReason?: string;
  readonly [key: string]: unknown;
}

/** Sampling options: the hook that asks a model. */
export interface SamplingOptions {
  readonly createMessage: (
    request: SamplingRequest,
    context: { readonly signal?: AbortSignal },
  ) => SamplingResult | Promise<SamplingResult>;
  /** Declare `sampling.tools` (SEP-1577). */
  readonly tools?: boolean;
  /** Declare `sampling.context` (soft-deprecated `includeContext`). */
  readonly context?: boolean;
}

/** A `notifications/message` log entry from the server. */
export interface LogEntry {
  readonly level: "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
  readonly logger?: string;
  readonly data: unknown;
}

/** Options for `createClientFeatures`. Only features given here are declared. */
export interface ClientFeaturesOptions {
  readonly elicitation?: ElicitationOptions;
  readonly roots?: RootsOptions;
  readonly sampling?: SamplingOptions;
  /** Server log messages (`notifications/message`). */
  readonly onLog?: (entry: LogEntry) => void;
}

/** Sends a notification to the server (e.g. a caller's `notify`). */
export type Notifier = (method: string, params?: { readonly [key: string]: unknown }) => unknown;

/** The bundle: spread `capabilities`, `handlers` and `onNotification` into a caller's options. */
export interface ClientFeatures {
  readonly capabilities: { readonly [key: string]: unknown };
  readonly handlers: ReadonlyMap<string, RequestHandler>;
  /** Routes feature notifications (logging, elicitation complete); returns true when it used one. */
  readonly onNotification: (notification: RpcNotification) => boolean;
  /** Replaces the static roots list and sends `notifications/roots/list_changed` through each notifier. */
  setRoots(roots: readonly Root[]): Promise<void>;
  /** Tells the server the roots changed, without replacing them (for function-backed roots). */
  rootsChanged(): Promise<void>;
  /** Registers where `notifications/roots/list_changed` goes; returns an unsubscribe function. */
  addNotifier(notifier: Notifier): () => void;
  /**
   * For a failure that is a URLElicitationRequiredError (-32042): asks the url handler about each
   * elicitation. True when there was at least one and every one was accepted (the call may be retried).
   */
  answerUrlElicitations(failure: { readonly rpc?: { readonly code: number; readonly data?: unknown } | undefined }): Promise<boolean>;
}

const LOG_LEVELS: readonly string[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** Checks roots and names the bad entry; roots must be `file://` URIs. */
export function checkRoots(roots: readonly Root[]): Root[] {
  if (!Array.isArray(roots)) throw new TypeError("roots must be an array of { uri, name? }");
  return roots.map((root, i) => {
    if (typeof root !== "object" || root === null || typeof root.uri !== "string" || !root.uri.startsWith("file://")) {
      throw new TypeError(`roots[${i}].uri must be a file:// URI, got ${JSON.stringify((root as { uri?: unknown } | null)?.uri)}`);
    }
    if (root.name !== undefined && typeof root.name !== "string") throw new TypeError(`roots[${i}].name must be a string`);
    return root.name === undefined ? { uri: root.uri } : { uri: root.uri, name: root.name };
  });
}

function checkSampling(result: unknown): SamplingResult {
  const r = result as Partial<SamplingResult> | null | undefined;
  if (typeof r !== "object" || r === null) throw new RpcHandlerError(-32603, "sampling handler returned no result");
  if (r.role !== "assistant" && r.role !== "user") throw new RpcHandlerError(-32603, "sampling result needs role assistant or user");
  if (typeof r.model !== "string") throw new RpcHandlerError(-32603, "sampling result needs a model name");
  if (typeof r.content !== "object" || r.content === null) throw new RpcHandlerError(-32603, "sampling result needs content");
  return r as SamplingResult;
}

/** Builds capabilities, server-to-client handlers and a notification router for the given features. */
export function createClientFeatures(options: ClientFeaturesOptions = {}): ClientFeatures {
  const capabilities: { [key: string]: unknown } = {};
  const handlers = new Map<string, RequestHandler>();
  const notifiers = new Set<Notifier>();
  let staticRoots: Root[] | undefined;

  const elicitation = elicitationCapability(options.elicitation);
  if (elicitation && options.elicitation) {
    capabilities.elicitation = elicitation;
    handlers.set("elicitation/create", createElicitationHandler(options.elicitation));
  }

  const roots = options.roots;
  if (roots) {
    if (typeof roots.list !== "function") staticRoots = checkRoots(roots.list);
    capabilities.roots = { listChanged: true };
    handlers.set("roots/list", async () => {
      const current = typeof roots.list === "function" && staticRoots === undefined ? checkRootsForServer(await roots.list()) : staticRoots;
      return { roots: current ?? [] };
    });
  }

  const sampling = options.sampling;
  if (sampling) {
    capabilities.sampling = { ...(sampling.context ? { context: {} } : {}), ...(sampling.tools ? { tools: {} } : {}) };
    handlers.set("sampling/createMessage", async (params) => {
      const p = params ?? {};
      if (!Array.isArray(p.messages) || typeof p.maxTokens !== "number") {
        throw new RpcHandlerError(-32602, "sampling/createMessage needs params.messages (array) and params.maxTokens (number)");
      }
      return checkSampling(await sampling.createMessage(p as SamplingRequest, {}));
    });
  }

  async function rootsChanged(): Promise<void> {
    await Promise.all([...notifiers].map(async (notify) => notify("notifications/roots/list_changed")));
  }

  return {
    capabilities,
    handlers,
    onNotification(notification) {
      const params = notification.params ?? {};
      if (notification.method === "notifications/message" && options.onLog) {
        const level = typeof params.level === "string" && LOG_LEVELS.includes(params.level) ? params.level : "info";
        options.onLog({
          level: level as LogEntry["level"],
          ...(typeof params.logger === "string" ? { logger: params.logger } : {}),
          data: params.data,
        });
        return true;
      }
      if (notification.method === "notifications/elicitation/complete" && options.elicitation?.onComplete) {
        if (typeof params.elicitationId === "string") options.elicitation.onComplete(params.elicitationId);
        return true;
      }
      return false;
    },
    async setRoots(next) {
      if (!roots) throw new Error("setRoots: roots were not declared in createClientFeatures({ roots })");
      staticRoots = checkRoots(next);
      await rootsChanged();
    },
    rootsChanged,
    addNotifier(notifier) {
      notifiers.add(notifier);
      return () => notifiers.delete(notifier);
    },
    async answerUrlElicitations(failure) {
      const url = options.elicitation?.url;
      const wanted = urlElicitationsRequired(failure);
      if (!url || wanted.length === 0) return false;
      for (const request of wanted) {
        const answer = await url(request, {});
        if (answer?.action !== "accept") return false;
      }
      return true;
    },
  };
}

function checkRootsForServer(roots: readonly Root[]): Root[] {
  try {
    return checkRoots(roots);
  } catch (error) {
    throw new RpcHandlerError(-32603, `roots provider: ${(error as Error).message}`);
  }
}
