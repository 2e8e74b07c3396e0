/**
 * `createRuntime()`: a registry of toolsets, filled by the generated `register*Toolset` helpers,
 * that runs calls by tool id, provider-safe name or wire name, and enforces the run policy.
 */
import type { Caller, CallOptions } from "../caller/caller.js";
import { invokeValidated } from "../caller/invoke.js";
import { type ToolRequest, toolUnavailable } from "../caller/tool-request.js";
import type { ToolResult, ToolSpec } from "../caller/tool-spec.js";
import { type ToolFailure, validateFailure } from "../failure/failure.js";
import {
  type CallFacts,
  type FailureContext,
  failureFromFault,
  failureFromInvalidInput,
  failureFromLocal,
} from "../failure/failure-mapping.js";
import { createRunLedger, type DesignRunPolicy, type RunLedger, type RunPolicy, type RunUsage, runPolicyFromDesign } from "./policy.js";
import { createPrincipalHasher } from "./principal-hash.js";
import { connectionOf, createTelemetry, type TelemetryOptions } from "./telemetry.js";

/** A registered toolset. */
export interface ToolsetRegistration {
  readonly toolset: string;
  readonly specs: readonly ToolSpec[];
  readonly caller: Caller;
}

/** A request to run one tool. `tool` is an id (`toolset.tool`), a provider-safe name or a unique wire name. */
export type ExecuteRequest = ToolRequest;

/** Options of `createRuntime`. */
export interface RuntimeOptions extends TelemetryOptions {
  /** Run limits, in runtime names (`timeBudgetMs`, `toolTimeoutMs`) or design names (`timeBudget`, `toolTimeout`). */
  readonly policy?: RunPolicy & DesignRunPolicy;
  /**
   * Asked before tools annotated destructive or marked `requiresConfirmation`. Resolve `true` to run.
   * A denial (or a throwing hook) fails the call as canceled / replan, reason `confirmation_denied`,
   * and nothing is sent. Without a hook, destructive tools run and `requiresConfirmation` tools are denied.
   */
  readonly confirm?: (spec: ToolSpec, payload: unknown) => Promise<boolean> | boolean;
  /** Telemetry options grouped (same fields as the top-level `onEvent`, `tracing`, `tracer`, `principalHash`, which win). */
  readonly telemetry?: TelemetryOptions;
  /** Clock in ms for the run policy; injectable for tests. */
  readonly now?: () => number;
}

/** The runtime registry. */
export interface Runtime {
  /** Adds a toolset. Registering the same toolset name twice replaces it. */
  registerToolset(registration: ToolsetRegistration): void;
  /** Looks up a spec by id, provider-safe name, or wire name when that is unique. */
  lookup(tool: string): { readonly spec: ToolSpec; readonly caller: Caller } | undefined;
  /** Every registered spec. */
  specs(): readonly ToolSpec[];
  /**
   * Optional: why `tool` is not registered, when the registry knows better than "no such tool"
   * (a principal's runtime whose server needs that principal's authorization answers `auth_required`
   * naming the server). Undefined when the tool should be looked up again (it may be registered now)
   * or when nothing more is known. `createRuntime`'s registry has none.
   */
  unavailable?(tool: string): Promise<ToolFailure | undefined>;
  /** Runs a call. Never throws for bad input: unknown tools, policy limits and rejections are failures. */
  execute(request: ExecuteRequest, options?: CallOptions): Promise<ToolResult<unknown>>;
  /** The normalized run policy. */
  readonly policy: RunPolicy;
  /** Counters of the current run. */
  usage(): RunUsage;
  /** Starts a new run: resets the call count, the failure streak and the time budget clock. */
  resetRun(): void;
}

type Entry = { spec: ToolSpec; caller: Caller };

/** Declared read-only or idempotent: a failure after which the tool may have run can still be retried as is. */
export function repeatable(spec: ToolSpec): boolean {
  return spec.annotations?.readOnly === true || spec.annotations?.idempotent === true;
}

/** Replaces an impossible failure from a third-party caller by an `internal` one that says why. */
function checked(result: ToolResult<unknown>, context: FailureContext): ToolResult<unknown> {
  if (result.ok) return result;
  const problems = validateFailure(result.failure);
  if (problems.length === 0) return result;
  // The bad failure's own message is kept (capped) so the author can tell which caller path produced it.
  const original = typeof result.failure?.message === "string" ? ` (${result.failure.message.slice(0, 200)})` : "";
  const message = `${context.server}: the caller returned an invalid failure${original}: ${problems.join("; ")}`;
  return { ok: false, failure: failureFromLocal("invalid_failure", message, context) };
}

/** Rebuilds the lookup index: ids, provider names, and wire names that only one toolset uses. */
function reindex(toolsets: ReadonlyMap<string, ToolsetRegistration>, index: Map<string, Entry>): void {
  index.clear();
  const wire = new Map<string, Entry[]>();
  for (const reg of toolsets.values()) {
    for (const spec of reg.specs) {
      const entry = { spec, caller: reg.caller };
      index.set(spec.id, entry);
      index.set(spec.providerName, entry);
      wire.set(spec.name, [...(wire.get(spec.name) ?? []), entry]);
    }
  }
  // A wire name shared by two toolsets would pick one silently: it is indexed only when unique, and
  // never over an id or provider name.
  for (const [name, entries] of wire) if (entries.length === 1 && !index.has(name)) index.set(name, entries[0] as Entry);
}

/**
 * Runs the call with the timeout backstop and the caller's own signal linked in. The run's facts
 * (is the tool repeatable, which deadline applies) go down with the call, so its failures are
 * built with them (not safe to repeat, tool timeout, time budget) where they happen.
 */
async function send(ledger: RunLedger, entry: Entry, payload: unknown, callOptions: CallOptions): Promise<ToolResult<unknown>> {
  const { timeoutMs, budgetBound } = ledger.callTimeout(callOptions.timeoutMs);
  const deadline = budgetBound ? "time_budget" : timeoutMs === undefined ? undefined : "tool_timeout";
  const facts: CallFacts = {
    ...callOptions.facts,
    tool: entry.spec.id,
    repeatable: repeatable(entry.spec),
    ...(deadline === undefined ? {} : { deadline }),
  };
  const context: FailureContext = { ...facts, tool: entry.spec.id, server: entry.caller.server, input: payload };
  const controller = new AbortController();
  const outer = callOptions.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  // The race below answers on abort or backstop even when a caller ignores its signal and never
  // settles; the user's deadline holds either way.
  const stop = new Promise<ToolResult<unknown>>((resolve) => {
    onAbort = () => {
      controller.abort(outer?.reason);
      resolve({ ok: false, failure: failureFromFault({ type: "canceled", message: "aborted by caller" }, context) });
    };
    if (outer?.aborted) onAbort();
    else outer?.addEventListener("abort", onAbort, { once: true });
    // With progress resets the caller may legitimately wait longer; then only a hard cap is enforced here.
    const backstop = callOptions.resetTimeoutOnProgress && !budgetBound ? callOptions.maxTotalTimeoutMs : timeoutMs;
    if (backstop !== undefined)
      timer = setTimeout(() => {
        controller.abort(new Error("tool timeout"));
        resolve({
          ok: false,
          failure: failureFromFault({ type: "timeout", phase: "request", message: `no answer within ${backstop} ms` }, context),
        });
      }, backstop + 50); // after the caller's own timeout, so its more precise failure normally wins
  });
  try {
    const call = invokeValidated(entry.caller, entry.spec, payload, {
      ...callOptions,
      signal: controller.signal,
      facts,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
    return checked(await Promise.race([call, stop]), context);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort) outer?.removeEventListener("abort", onAbort);
  }
}

/** Creates an empty runtime registry. Throws a TypeError on an invalid policy. */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const toolsets = new Map<string, ToolsetRegistration>();
  const index = new Map<string, Entry>();
  const policy = runPolicyFromDesign(options.policy ?? {});
  const ledger = createRunLedger(policy, options.now);
  const telemetry = createTelemetry({
    ...options.telemetry,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.tracing !== undefined ? { tracing: options.tracing } : {}),
    ...(options.tracer ? { tracer: options.tracer } : {}),
  });
  const hashPrincipal = createPrincipalHasher(options.principalHash ?? options.telemetry?.principalHash);

  const specs = () => [...toolsets.values()].flatMap((r) => r.specs);

  function needsConfirmation(spec: ToolSpec): boolean {
    return spec.requiresConfirmation === true || spec.annotations?.destructive === true;
  }

  async function confirmed(spec: ToolSpec, payload: unknown): Promise<boolean> {
    // No hook: annotations alone (destructive) do not block, but an explicit requiresConfirmation cannot
    // be confirmed by anyone, so it is denied.
    if (!options.confirm) return spec.requiresConfirmation !== true;
    const resume = ledger.pause(); // waiting on a person does not spend the time budget
    try {
      return (await options.confirm(spec, payload)) === true;
    } catch {
      // A hook that throws has not said yes: fail closed.
      return false;
    } finally {
      resume();
    }
  }

  /** Validates, applies policy, and sends. Returns the result and whether it reached a server. */
  async function run(
    request: ExecuteRequest,
    callOptions: CallOptions,
  ): Promise<{ result: ToolResult<unknown>; sent: boolean; counts: boolean }> {
    const entry = request.rejection ? undefined : index.get(request.tool);
    // A policy stop does not count toward the failure streak (counts: false): it is the run ending, not a tool failing.
    const stop = ledger.check();
    if (stop) {
      const at = { tool: entry?.spec.id ?? request.rejection?.tool ?? request.tool, server: entry?.caller.server ?? "" };
      return { result: { ok: false, failure: failureFromLocal(stop.reason, stop.message, at) }, sent: false, counts: false };
    }
    if (request.rejection) return { result: { ok: false, failure: request.rejection }, sent: false, counts: true };
    if (!entry) return { result: { ok: false, failure: toolUnavailable(request.tool, specs()) }, sent: false, counts: true };
    const { spec, caller } = entry;
    const context = { tool: spec.id, server: caller.server };
    const decoded = spec.decodePayload(request.arguments);
    if (!decoded.ok) {
      const failure = failureFromInvalidInput(decoded.issues, request.arguments, spec.exampleJson, context);
      return { result: { ok: false, failure }, sent: false, counts: true };
    }
    if (needsConfirmation(spec) && !(await confirmed(spec, request.arguments))) {
      const why = options.confirm ? "the confirmation hook denied it" : "it requires confirmation and no confirmation hook is set";
      const failure = failureFromLocal("confirmation_denied", `${spec.id} was not run: ${why}`, context);
      return { result: { ok: false, failure }, sent: false, counts: true };
    }
    const late = ledger.check(); // the confirmation hook may have awaited while parallel calls ran
    if (late) return { result: { ok: false, failure: failureFromLocal(late.reason, late.message, context) }, sent: false, counts: false };
    // Counted as sent before the await, so parallel calls see the call budget already spent.
    ledger.recordSent();
    return { result: await send(ledger, entry, request.arguments, callOptions), sent: true, counts: true };
  }

  return {
    policy,
    registerToolset(registration) {
      toolsets.set(registration.toolset, registration);
      reindex(toolsets, index);
    },
    lookup: (tool) => index.get(tool),
    specs,
    usage: () => ledger.usage(),
    resetRun: () => ledger.reset(),
    async execute(request, callOptions = {}) {
      // Starts the time budget clock on the first call of a run.
      ledger.touch();
      const entry = request.rejection ? undefined : index.get(request.tool);
      const tool = entry?.spec.id ?? request.rejection?.tool ?? request.tool;
      const server = entry?.caller.server ?? request.rejection?.server ?? "";
      // Only with the option: a call pays no hashing (nor an await) otherwise.
      const principalHash = hashPrincipal ? await hashPrincipal(callOptions.principal) : undefined;
      const base = {
        tool,
        server,
        ...(entry ? { toolset: entry.spec.toolset } : {}),
        ...(request.callId === undefined ? {} : { callId: request.callId }),
        ...(principalHash === undefined ? {} : { principalHash }),
      };
      const startedAt = performance.now();
      telemetry.emit({ type: "call_started", ...base, at: Date.now() });
      const connection = connectionOf(entry?.caller);
      const span = await telemetry.startSpan(tool, server, request.callId, connection, principalHash);
      let outcome: Awaited<ReturnType<typeof run>>;
      try {
        const setId = span.requestId;
        // Only when a span records it: the wrapper costs an object per call otherwise spared.
        const options: CallOptions = setId
          ? {
              ...callOptions,
              onRequestId: (id, method) => {
                if (method === "tools/call") setId(id);
                callOptions.onRequestId?.(id, method);
              },
            }
          : callOptions;
        outcome = await span.run(() => run(request, options));
      } catch (error) {
        // Programmer errors (a caller used after close(), a throwing caller) propagate; the span still ends.
        span.end({ kind: "internal", message: error instanceof Error ? error.message : String(error) });
        throw error;
      }
      const { result, sent, counts } = outcome;
      const durationMs = performance.now() - startedAt;
      if (sent) telemetry.recordOperation(durationMs / 1000, tool, connection, result.ok ? undefined : result.failure.kind);
      if (counts) ledger.recordOutcome(result.ok);
      if (result.ok) {
        span.end({});
        telemetry.emit({ type: "call_finished", ...base, at: Date.now(), durationMs });
      } else {
        const failure: ToolFailure = result.failure;
        span.end({ kind: failure.kind, ...(failure.reason ? { reason: failure.reason } : {}), message: failure.message });
        telemetry.emit({
          type: "call_failed",
          ...base,
          at: Date.now(),
          durationMs,
          kind: failure.kind,
          action: failure.recovery.action,
          ...(failure.reason ? { reason: failure.reason } : {}),
          sent,
        });
      }
      return result;
    },
  };
}
