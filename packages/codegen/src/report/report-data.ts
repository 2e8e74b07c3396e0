/**
 * What `toolwright report` shows: for each external server of a design, its tools with their risk
 * level, the poisoning-lint findings, and the drift of the live catalogue from the lock with the
 * old and new text of every changed field. Live servers are listed like `toolwright pull` does;
 * a server that cannot be reached is reported from its lock entry with the error.
 */
import type { ExternalServerDecl } from "@toolwright/dsl";
import {
  compareCatalogues,
  type FieldChange,
  fingerprintCatalogue,
  type LintFinding,
  lintCatalogue,
  type ToolDrift,
  withFieldChanges,
} from "@toolwright/runtime/catalogue";
import { type RiskLevel, riskOf } from "@toolwright/runtime/manager";
import { loadDesign } from "../load/load-design.js";
import { pullServer } from "../pull/pull.js";
import { type LockedServer, lockPathFor, readLock } from "../resolve/lock.js";

/** One tool row. */
export interface ReportTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** From the annotations (read-only low, destructive high, else medium); annotations are hints from an untrusted server. */
  readonly risk: RiskLevel;
  readonly status: "unchanged" | "added" | "removed" | "changed" | "unlocked";
  readonly fields: readonly FieldChange[];
  readonly findings: readonly LintFinding[];
}

/** One server section. */
export interface ReportServer {
  readonly name: string;
  /** `live`: listed now; `lock`: from the lock only (offline, or the server failed: see `error`). */
  readonly source: "live" | "lock";
  readonly error?: string;
  readonly serverInfo?: { readonly name: string; readonly version: string };
  readonly instructions?: string;
  readonly instructionsChange?: FieldChange;
  readonly tools: readonly ReportTool[];
  /** Findings on the server's instructions. */
  readonly findings: readonly LintFinding[];
}

/** The whole report. */
export interface ReportData {
  readonly design: string;
  readonly lock: string;
  readonly hasLock: boolean;
  readonly generatedAt: string;
  readonly servers: readonly ReportServer[];
  readonly findings: readonly LintFinding[];
}

/** Options for `buildReport`. */
export interface ReportOptions {
  readonly design: string;
  readonly cwd?: string;
  /** Use the lock only; connect to nothing. */
  readonly offline?: boolean;
  /** Per server, for connect plus `tools/list`. Default 20 s. */
  readonly timeoutMs?: number;
  readonly now?: () => Date;
}

type Entry = { readonly name: string; readonly [field: string]: unknown };
const named = (tools: readonly unknown[]): Entry[] => tools.filter((t): t is Entry => typeof (t as { name?: unknown })?.name === "string");
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function rows(
  current: readonly Entry[],
  locked: LockedServer | undefined,
  drift: readonly ToolDrift[],
  findings: readonly LintFinding[],
  server: string,
): ReportTool[] {
  const byTool = new Map(drift.map((d) => [d.tool, d]));
  const lockedTools = locked ? named(locked.tools) : [];
  const removed = lockedTools.filter((t) => byTool.get(t.name)?.change === "removed");
  return [...current, ...removed]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => {
      const d = byTool.get(t.name);
      const annotations = (typeof t.annotations === "object" && t.annotations !== null ? t.annotations : undefined) as never;
      const title = text(t.title);
      const description = text(t.description);
      return {
        name: t.name,
        ...(title === undefined ? {} : { title }),
        ...(description === undefined ? {} : { description }),
        risk: riskOf(annotations, false).level,
        status: locked === undefined ? "unlocked" : (d?.change ?? "unchanged"),
        fields: d?.fields ?? [],
        findings: findings.filter((f) => f.server === server && f.kind === "tool" && f.tool === t.name),
      };
    });
}

/** Gathers the report. Throws `DesignError` for a bad design; server failures are reported, not thrown. */
export async function buildReport(options: ReportOptions): Promise<ReportData> {
  const cwd = options.cwd ?? process.cwd();
  const loaded = await loadDesign(options.design, cwd);
  const external = loaded.design.servers.filter((s): s is ExternalServerDecl => s.kind === "external-server");
  let lock: { readonly [name: string]: LockedServer } | undefined;
  let lockError: string | undefined;
  try {
    lock = readLock(loaded.path, lockPathFor(loaded.label))?.servers;
  } catch (error) {
    lockError = error instanceof Error ? error.message : String(error);
  }
  const ctx = { file: loaded.label, designPath: loaded.path, cwd };
  const timeoutMs = options.timeoutMs ?? 20_000;
  const live = await Promise.all(
    external.map(async (s) => {
      if (options.offline) return { server: s.name };
      try {
        return { server: s.name, entry: (await pullServer(s, ctx, timeoutMs)).entry };
      } catch (error) {
        return { server: s.name, error: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
  const current = live.map((l) => {
    const locked = lock?.[l.server];
    const tools = named(l.entry?.tools ?? locked?.tools ?? []);
    const instructions = ("entry" in l && l.entry ? l.entry.instructions : locked?.instructions) ?? undefined;
    return { ...l, locked, tools, instructions };
  });
  const findings = lintCatalogue(current.map((c) => ({ name: c.server, tools: c.tools, instructions: c.instructions })));
  const servers = current.map((c): ReportServer => {
    const lockedTools = c.locked ? named(c.locked.tools) : [];
    const before = Object.fromEntries(lockedTools.map((t) => [t.name, t]));
    const drift =
      c.locked && c.entry
        ? withFieldChanges(compareCatalogues(fingerprintCatalogue(lockedTools).tools, c.entry.fingerprints), before, c.tools)
        : [];
    const pinned = c.locked?.instructions ?? undefined;
    const liveText = c.entry?.instructions ?? undefined;
    // A lock without the field predates pinned instructions: nothing to compare.
    const instructionsChange: FieldChange | undefined =
      c.locked && c.entry && c.locked.instructions !== undefined && pinned !== liveText
        ? {
            field: "instructions",
            ...(pinned === undefined ? {} : { before: pinned }),
            ...(liveText === undefined ? {} : { after: liveText }),
          }
        : undefined;
    const info = c.entry?.serverInfo ?? (c.locked as { serverInfo?: { name: string; version: string } } | undefined)?.serverInfo;
    const error = "error" in c ? c.error : c.locked === undefined && options.offline ? "not in the lock (run toolwright pull)" : undefined;
    return {
      name: c.server,
      source: c.entry ? "live" : "lock",
      ...(error === undefined ? {} : { error }),
      ...(info ? { serverInfo: info } : {}),
      ...(c.instructions === undefined ? {} : { instructions: c.instructions }),
      ...(instructionsChange ? { instructionsChange } : {}),
      tools: rows(c.tools, c.locked, drift, findings, c.server),
      findings: findings.filter((f) => f.server === c.server && f.kind === "instructions"),
    };
  });
  return {
    design: loaded.label,
    lock: lockError ? `${lockPathFor(loaded.label)} (unreadable: ${lockError})` : lockPathFor(loaded.label),
    hasLock: lock !== undefined,
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
    servers,
    findings,
  };
}
