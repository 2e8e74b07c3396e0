/**
 * Live-catalogue drift: `checkDrift` lists the live server's tools at connect time and reports per
 * tool what was added, removed or changed since the pull, which field changed and its old and new
 * text, and (policy `block-changed`) hides the changed tools from a runtime. Pulled prompts,
 * resources and templates are compared too (surface-drift.ts).
 */
import type { Caller, CallOptions, SessionCaller } from "../caller/caller.js";
import type { Runtime } from "../core/runtime.js";
import type { ToolFailure } from "../failure/failure.js";
import { describeFieldChange, diffEntries, type FieldChange } from "./catalogue-diff.js";
import { type FingerprintedTool, fingerprintCatalogue } from "./fingerprint.js";
import {
  compareSurface,
  describeSurfaceDrift,
  type ExpectedSurface,
  listSurface,
  type SurfaceDrift,
  surfaceDriftLabel,
} from "./surface-drift.js";

/** One tool that differs from the lock. */
export interface ToolDrift {
  readonly tool: string;
  /** `added`: live only; `removed`: in the lock only; `changed`: something the model reads or the call depends on differs. */
  readonly change: "added" | "removed" | "changed";
  readonly expected?: string;
  readonly actual?: string;
  /** For `changed`, when the lock's entry is known: each changed field with its old and new text. */
  readonly fields?: readonly FieldChange[];
}

/** What `checkDrift` compares against: the lock's fingerprints as generated code carries them. */
export interface ExpectedCatalogue {
  readonly server?: string;
  /** The toolset the generated code registers; `block-changed` hides tools of this toolset. */
  readonly toolset?: string;
  readonly fingerprint?: string | null;
  readonly tools: { readonly [tool: string]: string };
  /** The server's pulled `instructions` (null: it had none). Undefined: not checked. */
  readonly instructions?: string | null;
  /** The pulled `tools/list` entries by name, so a change can be shown field by field. */
  readonly snapshots?: { readonly [tool: string]: unknown };
  /** The pulled prompts, resources and templates (each list only when the lock records it). Undefined: not checked. */
  readonly surface?: ExpectedSurface;
}

/**
 * What to do on drift. `block-changed`: succeed, but hide each changed tool (and fail on changed
 * instructions); a drifted prompt or resource cannot be hidden from a runtime, so it is warned about.
 */
export type DriftPolicy = "warn" | "fail" | "block-changed";

/** Options for `checkDrift`. */
export interface DriftOptions extends CallOptions {
  /** `warn` (default): report drift through `onWarning` and succeed. `fail`: drift makes the check fail. `block-changed`: see `DriftPolicy`. */
  readonly policy?: DriftPolicy;
  /** Receives one line per drifted tool, prompt, resource or template under `warn` and `block-changed`. Default: `console.warn`. */
  readonly onWarning?: (message: string, drift: ToolDrift | SurfaceDrift) => void;
  /** Only these tools matter (a toolset subset); others are ignored. Default: every tool. */
  readonly tools?: readonly string[];
  /** With `block-changed`: the runtime whose toolset loses the changed tools (re-registered without them). */
  readonly runtime?: Runtime;
}

/** The outcome of a drift check. `ok` is false on drift under `fail`, or when the tools could not be listed. */
export type DriftReport =
  | {
      readonly ok: true;
      readonly server: string;
      readonly drift: readonly ToolDrift[];
      /** Tools hidden under `block-changed` (wire names). */
      readonly blocked?: readonly string[];
      /** Set when the server's instructions differ from the lock's. */
      readonly instructions?: FieldChange;
      /** Drifted prompts, resources and templates, when any. */
      readonly surface?: readonly SurfaceDrift[];
    }
  | {
      readonly ok: false;
      readonly server: string;
      readonly drift: readonly ToolDrift[];
      /** One line naming the server and every drifted tool, or why listing failed. */
      readonly message: string;
      /** Set when `tools/list` (or a prompts or resources list) itself failed. */
      readonly failure?: ToolFailure;
      readonly instructions?: FieldChange;
      readonly surface?: readonly SurfaceDrift[];
    };
/** Compares live fingerprints with expected ones, per tool, sorted by tool name. */
export function compareCatalogues(
  expected: { readonly [tool: string]: string },
  actual: { readonly [tool: string]: string },
  only?: readonly string[],
): ToolDrift[] {
  const keep = only ? new Set(only) : undefined;
  const names = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].filter((n) => !keep || keep.has(n)).sort();
  const out: ToolDrift[] = [];
  for (const tool of names) {
    const e = Object.hasOwn(expected, tool) ? expected[tool] : undefined;
    const a = Object.hasOwn(actual, tool) ? actual[tool] : undefined;
    if (e === a) continue;
    if (e === undefined) out.push({ tool, change: "added", actual: a as string });
    else if (a === undefined) out.push({ tool, change: "removed", expected: e });
    else out.push({ tool, change: "changed", expected: e, actual: a });
  }
  return out;
}

function describeDrift(server: string, d: ToolDrift): string {
  if (d.change === "added") return `server "${server}": tool "${d.tool}" is live but not in the lock (added since the pull)`;
  if (d.change === "removed") return `server "${server}": tool "${d.tool}" is in the lock but the server no longer lists it (removed)`;
  const what = d.fields?.length ? d.fields.map(describeFieldChange).join("; ") : "its listed entry differs";
  return `server "${server}": tool "${d.tool}" changed since the pull (${what}); run toolwright pull`;
}

/** Adds the field-level changes to `changed` drift entries whose pulled entry is known. */
export function withFieldChanges(
  drift: readonly ToolDrift[],
  before: { readonly [tool: string]: unknown } | undefined,
  after: readonly FingerprintedTool[],
): ToolDrift[] {
  if (!before) return [...drift];
  const live = new Map(after.map((t) => [t.name, t]));
  return drift.map((d) =>
    d.change === "changed" && Object.hasOwn(before, d.tool) ? { ...d, fields: diffEntries(before[d.tool], live.get(d.tool)) } : d,
  );
}

/** Re-registers `toolset` in `runtime` without the `blocked` wire names (nothing to do when none of its tools are blocked). */
function hideTools(runtime: Runtime, toolset: string, caller: Caller, blocked: ReadonlySet<string>): void {
  const specs = runtime.specs().filter((s) => s.toolset === toolset);
  if (!specs.some((s) => blocked.has(s.name))) return;
  runtime.registerToolset({ toolset, specs: specs.filter((s) => !blocked.has(s.name)), caller });
}

/**
 * Lists the server's tools through `caller` and compares their fingerprints with `expected`.
 * Never throws: listing failures and drift under `fail` come back as `{ ok: false, message }`.
 */
export async function checkDrift(caller: Caller, expected: ExpectedCatalogue, options: DriftOptions = {}): Promise<DriftReport> {
  const server = caller.server;
  if (!caller.listTools) return { ok: false, server, drift: [], message: `server "${server}": this caller cannot list tools` };
  const { policy = "warn", onWarning = (m: string) => console.warn(m), tools: only, runtime, ...callOptions } = options;
  const listed = await caller.listTools(callOptions);
  if (!listed.ok) {
    return {
      ok: false,
      server,
      drift: [],
      message: `server "${server}": cannot list tools: ${listed.failure.message}`,
      failure: listed.failure,
    };
  }
  const live = listed.value as readonly FingerprintedTool[];
  const drift = withFieldChanges(compareCatalogues(expected.tools, fingerprintCatalogue(live).tools, only), expected.snapshots, live);
  const instructions = instructionsChange(caller, expected);
  let surface: SurfaceDrift[] = [];
  if (expected.surface) {
    const listedSurface = await listSurface(caller, expected.surface, callOptions);
    if (!listedSurface.ok) {
      const why = listedSurface.failure?.message ?? "this caller cannot list them";
      return {
        ok: false,
        server,
        drift,
        message: `server "${server}": cannot list ${listedSurface.list}: ${why}`,
        ...(listedSurface.failure ? { failure: listedSurface.failure } : {}),
      };
    }
    surface = compareSurface(expected.surface, listedSurface.live);
  }
  const extra = { ...(instructions ? { instructions } : {}), ...(surface.length > 0 ? { surface } : {}) };
  if (drift.length === 0 && !instructions && surface.length === 0) return { ok: true, server, drift };
  const list = drift.map((d) => `${d.tool} (${d.change})`);
  if (instructions) list.push(`instructions (${describeFieldChange(instructions)})`);
  list.push(...surface.map(surfaceDriftLabel));
  // Instructions reach the model with every tool: they cannot be hidden one tool at a time.
  if (policy === "fail" || (policy === "block-changed" && instructions)) {
    return { ok: false, server, drift, message: `server "${server}": live catalogue drifted from the lock: ${list.join(", ")}`, ...extra };
  }
  for (const d of drift) onWarning(describeDrift(server, d), d);
  for (const d of surface) onWarning(describeSurfaceDrift(server, d), d);
  if (policy !== "block-changed") return { ok: true, server, drift, ...extra };
  const blocked = drift.filter((d) => d.change === "changed").map((d) => d.tool);
  if (runtime && expected.toolset !== undefined) hideTools(runtime, expected.toolset, caller, new Set(blocked));
  return { ok: true, server, drift, blocked, ...(surface.length > 0 ? { surface } : {}) };
}

/** The instructions change since the pull, when the expected catalogue pins them and the caller has a handshake. */
function instructionsChange(caller: Caller, expected: ExpectedCatalogue): FieldChange | undefined {
  if (expected.instructions === undefined) return undefined;
  const handshake = (caller as Partial<SessionCaller>).handshake;
  if (!handshake) return undefined;
  const live = typeof handshake.instructions === "string" ? handshake.instructions : undefined;
  const pinned = expected.instructions ?? undefined;
  if (live === pinned) return undefined;
  return { field: "instructions", ...(pinned === undefined ? {} : { before: pinned }), ...(live === undefined ? {} : { after: live }) };
}
