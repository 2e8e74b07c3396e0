/**
 * Faults on any message host: a tool server, a generated mock, a cassette replay. The wrapper sits
 * between the transport and the host's sessions, sees every `tools/call` on its way in, and either
 * lets it through or misbehaves as the plan says. It is still a host of the same shape (a wrapped
 * tool server can be served with `serveStdio` or `serveHttp`), because the wrapper only replaces
 * `openSession`.
 */
import type { MessageHost, MessageHostSession } from "@toolwright/runtime/caller";
import { createFaultSchedule, type Fault, type FaultPlan, type FaultSchedule } from "./plan.js";

type RpcId = string | number;
type Send = Parameters<MessageHost["openSession"]>[0]["send"];
type Outbound = Parameters<Send>[0];
type SessionOptionsOf<H extends MessageHost> = Parameters<H["openSession"]>[0];

/** Options for `withFaults`. */
export interface FaultHostOptions {
  /**
   * Runs on a `crash` fault after the session is closed. A stdio server passes
   * `() => process.exit(70)` so the crash is a real process exit.
   */
  readonly onCrash?: () => void;
}

/** A host with faults: the same host, plus the schedule (what fired, calls per tool). */
export type FaultyHost<H extends MessageHost> = H & { readonly faults: FaultSchedule };

/** The `requestState` prefix of an `input_required` round this layer injected. */
const STATE_PREFIX = "toolwright-fault:";
/** The key of the injected input request. */
export const FAULT_INPUT_KEY = "toolwright-fault";
/** The `structuredContent` a `bad-output` fault sends when the plan gives none. */
export const BROKEN_OUTPUT: { readonly [key: string]: unknown } = Object.freeze({ "toolwright-fault": "bad-output" });

const HTTP_ONLY: ReadonlySet<string> = new Set(["session-404", "unauthorized", "http-status"]);

interface RpcRequestLike {
  readonly id?: RpcId;
  readonly method?: unknown;
  readonly params?: { readonly [key: string]: unknown };
}

/**
 * Wraps `host` so the calls `plan` names misbehave. HTTP-only faults (`session-404`,
 * `unauthorized`, `http-status`) are refused here with a `TypeError`: put them on `startFaultProxy`.
 */
export function withFaults<H extends MessageHost>(host: H, plan: FaultPlan, options: FaultHostOptions = {}): FaultyHost<H> {
  const schedule = createFaultSchedule(plan);
  const httpOnly = plan.find((rule) => HTTP_ONLY.has(rule.fault.kind));
  if (httpOnly)
    throw new TypeError(`withFaults: fault "${httpOnly.fault.kind}" (tool ${httpOnly.tool}) is an HTTP fault: use startFaultProxy`);
  // Host-wide, as a real server's catalogue is: a description changed in one session shows in all.
  const drift = new Map<string, string>();
  const live = new Set<(message: Outbound) => void>();
  const announce = () => {
    for (const notify of live) notify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" } as Outbound);
  };
  // The host's own methods stay reachable (a wrapped tool server still notifies and serves).
  return Object.create(host, {
    faults: { value: schedule, enumerable: true },
    openSession: {
      value: (sessionOptions: SessionOptionsOf<H>) =>
        openFaultySession(host, sessionOptions, { schedule, drift, live, announce, onCrash: options.onCrash }),
    },
  }) as FaultyHost<H>;
}

interface Shared {
  readonly schedule: FaultSchedule;
  readonly drift: Map<string, string>;
  readonly live: Set<(message: Outbound) => void>;
  readonly announce: () => void;
  readonly onCrash: (() => void) | undefined;
}

function openFaultySession<H extends MessageHost>(host: H, sessionOptions: SessionOptionsOf<H>, shared: Shared): MessageHostSession {
  let dead = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  // Answers to rewrite on their way out, by request id (bad output, drifted lists).
  const rewrites = new Map<RpcId, (result: { [key: string]: unknown }) => unknown>();
  const after = new Map<RpcId, () => void>();
  const send: Send = (message, related) => {
    if (dead) return false;
    const m = message as { id?: RpcId; result?: unknown };
    if (m.id !== undefined && "result" in m) {
      const rewrite = rewrites.get(m.id);
      rewrites.delete(m.id);
      if (rewrite && typeof m.result === "object" && m.result !== null) {
        message = { ...m, result: rewrite(m.result as { [key: string]: unknown }) } as Outbound;
      }
    }
    const sent = sessionOptions.send(message, related);
    if (m.id !== undefined && ("result" in m || "error" in m)) {
      const then = after.get(m.id);
      after.delete(m.id);
      then?.();
    }
    return sent;
  };
  const notify = (message: Outbound) => void sessionOptions.send(message, undefined);
  shared.live.add(notify);
  const inner = host.openSession({ ...sessionOptions, send });
  const answer = (id: RpcId, body: { result: unknown } | { error: unknown }) =>
    void sessionOptions.send({ jsonrpc: "2.0", id, ...body } as Outbound, id);
  const close = () => {
    if (dead) return;
    dead = true;
    shared.live.delete(notify);
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    inner.close();
  };

  function apply(fault: Fault, request: RpcRequestLike & { readonly id: RpcId }, tool: string, raw: unknown): void {
    switch (fault.kind) {
      case "latency": {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!dead) inner.receive(raw);
        }, fault.ms);
        timers.add(timer);
        return;
      }
      case "is-error":
        answer(request.id, {
          result: { content: [{ type: "text", text: fault.text ?? `injected tool error (${tool})` }], isError: true },
        });
        return;
      case "bad-output":
        rewrites.set(request.id, (result) => ({ ...result, structuredContent: fault.structuredContent ?? BROKEN_OUTPUT }));
        inner.receive(raw);
        return;
      case "rpc-error": {
        const error = {
          code: fault.code,
          message: fault.message ?? `injected error ${fault.code}`,
          ...(fault.data === undefined ? {} : { data: fault.data }),
        };
        answer(request.id, { error });
        return;
      }
      case "crash":
        // The session dies with the call in flight: nothing answers it, the transport hangs up.
        close();
        (sessionOptions as { close?: () => void }).close?.();
        shared.onCrash?.();
        return;
      case "hang":
        return; // never answered; the caller's deadline or abort must end the call
      case "input-required":
        answer(request.id, { result: inputRequired(request.id, fault.message ?? `the server needs input to run ${tool}`) });
        return;
      case "list-changed":
        after.set(request.id, () => {
          shared.drift.set(tool, fault.description);
          shared.announce();
        });
        inner.receive(raw);
        return;
      default:
        // HTTP-only faults were refused at set-up; a new kind must be handled above.
        throw new TypeError(`withFaults: fault "${fault.kind}" cannot be applied to a message host`);
    }
  }

  const session: MessageHostSession = Object.create(inner, {
    receive: {
      value(value: unknown) {
        if (dead) return;
        const request = value as RpcRequestLike;
        const isRequest = typeof value === "object" && value !== null && request.id !== undefined && typeof request.method === "string";
        if (isRequest && request.method === "tools/call") {
          const params = request.params ?? {};
          const state = params.requestState;
          if (typeof state === "string" && state.startsWith(STATE_PREFIX)) {
            // The retry of an injected input_required round: the host never asked, so it gets the plain call.
            const { requestState: _s, inputResponses: _r, ...plain } = params;
            inner.receive({ ...request, params: plain });
            return;
          }
          const tool = typeof params.name === "string" ? params.name : "";
          const hit = shared.schedule.next(tool);
          if (hit) return apply(hit.fault, request as RpcRequestLike & { readonly id: RpcId }, tool, value);
        }
        if (isRequest && request.method === "tools/list" && shared.drift.size > 0) {
          rewrites.set(request.id as RpcId, (result) => ({ ...result, tools: driftTools(result.tools, shared.drift) }));
        }
        inner.receive(value);
      },
    },
    close: { value: close },
  });
  return session;
}

function inputRequired(id: RpcId, message: string): unknown {
  return {
    resultType: "input_required",
    inputRequests: {
      [FAULT_INPUT_KEY]: {
        method: "elicitation/create",
        params: { mode: "form", message, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
      },
    },
    requestState: `${STATE_PREFIX}${String(id)}`,
  };
}

function driftTools(tools: unknown, drift: ReadonlyMap<string, string>): unknown {
  if (!Array.isArray(tools)) return tools;
  return tools.map((tool: { name?: unknown }) => {
    const description = typeof tool?.name === "string" ? drift.get(tool.name) : undefined;
    return description === undefined ? tool : { ...tool, description };
  });
}
