/**
 * Fault plans: which call of which tool misbehaves, and how. A plan is plain data, so a test reads
 * as a table of faults and the same plan applies to a message host (a tool server, a mock, a
 * replay) and to an HTTP front. The schedule counts `tools/call` requests per tool, from 1.
 */

/** One way a call can misbehave. */
export type Fault =
  /** The answer is held back `ms` milliseconds, then the call goes through. */
  | { readonly kind: "latency"; readonly ms: number }
  /** The call answers a tool error (`isError: true`) with this text. */
  | { readonly kind: "is-error"; readonly text?: string }
  /**
   * The call runs, then its `structuredContent` is replaced: by default with an object that breaks
   * the output schema; a non-object value breaks the protocol's result shape as well.
   */
  | { readonly kind: "bad-output"; readonly structuredContent?: unknown }
  /** The call answers a JSON-RPC error. */
  | { readonly kind: "rpc-error"; readonly code: number; readonly message?: string; readonly data?: unknown }
  /** The server dies mid-call: in memory the session closes, over stdio the process exits, over HTTP the socket is destroyed. */
  | { readonly kind: "crash" }
  /** The call is never answered: only the caller's deadline or abort ends it. */
  | { readonly kind: "hang" }
  /** HTTP only: the call is answered with this status (429 with `retry-after`, 503...) and a text body. */
  | {
      readonly kind: "http-status";
      readonly status: number;
      readonly headers?: { readonly [name: string]: string };
      readonly body?: string;
    }
  /** HTTP only: the session is unknown (404), as after a server restart. */
  | { readonly kind: "session-404" }
  /** HTTP only: 401 with a Bearer challenge; a request with a token other than the rejected one goes through. */
  | { readonly kind: "unauthorized" }
  /** The call answers `input_required` (an elicitation); the retry carrying the answer goes through. */
  | { readonly kind: "input-required"; readonly message?: string }
  /** The call goes through, then the tool's description changes and `notifications/tools/list_changed` is sent. */
  | { readonly kind: "list-changed"; readonly description: string };

/** The kinds of fault. */
export type FaultKind = Fault["kind"];

/** One rule: a fault for some calls of a tool ("*" for any tool). */
export interface FaultRule {
  /** Wire name of the tool, or "*" for every tool. */
  readonly tool: string;
  /** The 1-based call number this rule hits (per tool; for "*", per tool as well). */
  readonly call?: number;
  /** Hits this call number and every later one. */
  readonly from?: number;
  /** Hits every call (the default when neither `call` nor `from` is given). */
  readonly every?: boolean;
  readonly fault: Fault;
}

/** A plan: rules checked in order; the first that hits a call decides its fault. */
export type FaultPlan = readonly FaultRule[];

/** One fault the schedule handed out, for assertions ("the fault really fired"). */
export interface InjectedFault {
  readonly tool: string;
  readonly call: number;
  readonly kind: FaultKind;
}

/** Counts calls per tool and says which fault, if any, each call gets. */
export interface FaultSchedule {
  /** Counts one call of `tool` and answers its fault (recorded in `injected`), or undefined. */
  next(tool: string): { readonly fault: Fault; readonly call: number } | undefined;
  /** Calls of `tool` seen so far; of every tool when `tool` is omitted. */
  calls(tool?: string): number;
  /** Every fault handed out, in order. */
  readonly injected: readonly InjectedFault[];
}

const KINDS: ReadonlySet<string> = new Set<FaultKind>([
  "latency",
  "is-error",
  "bad-output",
  "rpc-error",
  "crash",
  "hang",
  "session-404",
  "unauthorized",
  "http-status",
  "input-required",
  "list-changed",
]);

/** Throws a `TypeError` naming the rule and field when a plan is malformed (a programmer error, caught at set-up). */
export function checkFaultPlan(plan: FaultPlan): void {
  if (!Array.isArray(plan)) throw new TypeError("fault plan: expected an array of rules");
  plan.forEach((rule: FaultRule, i) => {
    const where = `fault plan rule ${i}`;
    if (typeof rule !== "object" || rule === null) throw new TypeError(`${where}: expected an object`);
    if (typeof rule.tool !== "string" || rule.tool === "") throw new TypeError(`${where}: "tool" must be a tool name or "*"`);
    for (const field of ["call", "from"] as const) {
      const n = rule[field];
      if (n !== undefined && !(Number.isInteger(n) && n >= 1))
        throw new TypeError(`${where} (tool ${rule.tool}): "${field}" must be an integer >= 1`);
    }
    if (rule.call !== undefined && rule.from !== undefined)
      throw new TypeError(`${where} (tool ${rule.tool}): give "call" or "from", not both`);
    const kind = (rule.fault as { kind?: unknown } | undefined)?.kind;
    if (typeof kind !== "string" || !KINDS.has(kind)) {
      throw new TypeError(`${where} (tool ${rule.tool}): unknown fault kind ${JSON.stringify(kind)} (one of ${[...KINDS].join(", ")})`);
    }
    const fault = rule.fault;
    if (fault.kind === "latency" && !(Number.isFinite(fault.ms) && fault.ms >= 0))
      throw new TypeError(`${where}: latency "ms" must be >= 0`);
    if (fault.kind === "http-status" && !(Number.isInteger(fault.status) && fault.status >= 200 && fault.status <= 599))
      throw new TypeError(`${where}: http-status "status" must be an HTTP status (200-599)`);
    if (fault.kind === "rpc-error" && !Number.isInteger(fault.code)) throw new TypeError(`${where}: rpc-error "code" must be an integer`);
    if (fault.kind === "list-changed" && typeof fault.description !== "string")
      throw new TypeError(`${where}: list-changed "description" must be a string`);
  });
}

function hits(rule: FaultRule, call: number): boolean {
  if (rule.call !== undefined) return call === rule.call;
  if (rule.from !== undefined) return call >= rule.from;
  return true;
}

/** Creates the schedule for `plan` (checked first). Counts are per schedule: no global state. */
export function createFaultSchedule(plan: FaultPlan): FaultSchedule {
  checkFaultPlan(plan);
  // Prototype-free: tool names come from the wire ("__proto__" is a name like any other).
  const counts: { [tool: string]: number } = Object.create(null);
  const injected: InjectedFault[] = [];
  let total = 0;
  return {
    injected,
    calls: (tool) => (tool === undefined ? total : (counts[tool] ?? 0)),
    next(tool) {
      const call = (counts[tool] ?? 0) + 1;
      counts[tool] = call;
      total++;
      const rule = plan.find((r) => (r.tool === "*" || r.tool === tool) && hits(r, call));
      if (!rule) return undefined;
      injected.push({ tool, call, kind: rule.fault.kind });
      return { fault: rule.fault, call };
    },
  };
}
