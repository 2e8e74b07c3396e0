/**
 * `toolwright pull`: connects to every `externalServer(...)` of a design (stdio or streamable
 * HTTP), lists its tools (and the prompts, resources and resource templates it announces) through
 * every page, and writes the design's lock file atomically. Servers are pulled concurrently, each
 * within its own timeout. A server that fails does not cost the others: the lock gets what answered,
 * the failed server keeps its previous entry, and the summary lists it (`failed`; the CLI exits 3).
 * Only when every server fails is nothing written.
 */
import { existsSync, readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import type { ExternalServerDecl } from "@toolwright/dsl";
import type { Caller, ToolFailure } from "@toolwright/runtime";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { compareCatalogues, compareSurface, fingerprintCatalogue, lintCatalogue, withFieldChanges } from "@toolwright/runtime/catalogue";
import { createHttpCaller } from "@toolwright/runtime/http";
import { createServerClient, resolveServerEntry } from "@toolwright/runtime/manager";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { DesignError } from "../errors.js";
import { loadDesign, loadOptions } from "../load/load-design.js";
import { callerOptionsFor } from "../record/caller-options.js";
import { type ConnectionContext, isMcpJson, readMcpJsonEntry } from "../resolve/connection.js";
import { type LockedServer, lockPathFor, readLock } from "../resolve/lock.js";
import { LockError } from "../resolve/lock-shape.js";
import { surfaceFromLock } from "../resolve/lock-surface.js";
import { writeFileAtomic } from "../write.js";
import { type ListedSurface, lockEntryFromListing, type PulledServer, serializeLock } from "./lock-format.js";
import {
  type LockDrift,
  type LockSurfaceDrift,
  PullError,
  type PulledServerSummary,
  type PullFailure,
  type PullOptions,
  type PullSummary,
} from "./pull-types.js";

export type {
  LockDrift,
  LockSurfaceDrift,
  PulledServerSummary,
  PullFailure,
  PullOptions,
  PullProgress,
  PullSummary,
} from "./pull-types.js";
export { PullError } from "./pull-types.js";

/**
 * Creates the caller for one server's connection; relative `cwd` and the default cwd are the
 * design's folder. An `mcpJson()` entry is expanded and connected exactly as the manager does it.
 */
function callerFor(server: ExternalServerDecl, ctx: PullContext, timeoutMs: number): { caller: Caller; transport: "stdio" | "http" } {
  if (isMcpJson(server)) {
    const entry = readMcpJsonEntry(server, ctx);
    const config = resolveServerEntry(server.name, entry.raw, { file: entry.label, env: process.env });
    const timeouts = { connectTimeoutMs: timeoutMs, requestTimeoutMs: timeoutMs };
    return { transport: config.transport, caller: createServerClient(server.name, { ...config, ...timeouts }, { restartDelayMs: 60_000 }) };
  }
  const options = callerOptionsFor(server, ctx, timeoutMs);
  if (options === undefined) throw new PullError(server.name, "unknown connection kind");
  return "http" in options
    ? { transport: "http", caller: createHttpCaller(options.http) }
    : { transport: "stdio", caller: createStdioCaller(options.stdio) };
}

/** Where the design is, for resolving connections. */
export type PullContext = ConnectionContext;

/** Connects to one server, lists its tools through every page and builds its lock entry. Throws `PullError`. */
export async function pullServer(
  server: ExternalServerDecl,
  ctx: PullContext,
  timeoutMs: number,
): Promise<{ entry: PulledServer; summary: PulledServerSummary }> {
  const started = performance.now();
  let made: ReturnType<typeof callerFor>;
  try {
    made = callerFor(server, ctx, timeoutMs);
  } catch (error) {
    if (error instanceof DesignError) throw error;
    // Bad connection settings (e.g. a header naming an unset variable) are this server's failure.
    throw new PullError(server.name, error instanceof Error ? error.message : String(error));
  }
  const { caller, transport } = made;
  try {
    if (!caller.listTools) throw new PullError(server.name, "the caller cannot list tools");
    const listed = await caller.listTools({ timeoutMs });
    if (!listed.ok) {
      // The last stderr lines (already redacted by the runtime) usually say why a server died.
      const tail = listed.failure.stderrTail?.trim().split("\n").slice(-3).join(" | ");
      throw new PullError(server.name, `${listed.failure.message}${tail ? ` (stderr: ${tail})` : ""}`);
    }
    let entry: PulledServer;
    // The instructions reach the model like descriptions do: they are pinned with the tools.
    const handshake = (caller as { readonly handshake?: { readonly instructions?: unknown } }).handshake;
    const instructions = typeof handshake?.instructions === "string" ? handshake.instructions : null;
    const surface = await listSurfaceOf(server.name, caller, started + timeoutMs, timeoutMs);
    try {
      entry = lockEntryFromListing(listed.value, instructions, surface);
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      const list = /^(prompts|resources|resourceTemplates)\b/.exec(problem)?.[1];
      const what = list === undefined ? "tools/list" : list === "resourceTemplates" ? "resources/templates/list" : `${list}/list`;
      throw new PullError(server.name, `${what} answer is not a usable catalogue: ${problem}`);
    }
    // Provenance for readers of the lock (not fingerprinted): which server build was pulled.
    const info = (caller as { readonly handshake?: { readonly serverInfo?: { name?: unknown; version?: unknown } } }).handshake?.serverInfo;
    if (typeof info?.name === "string" && typeof info.version === "string") {
      entry = { ...entry, serverInfo: { name: info.name, version: info.version } };
    }
    const ms = Math.round(performance.now() - started);
    return { entry, summary: { name: server.name, transport, tools: entry.tools.length, fingerprint: entry.fingerprint, ms } };
  } finally {
    await caller.close?.().catch(() => undefined);
  }
}

/**
 * Lists the prompts, resources and resource templates the server announces (capabilities
 * `prompts` and `resources`), every page. A server without `resources/templates/list` (-32601)
 * simply has no templates; any other failure fails the pull naming the list.
 */
async function listSurfaceOf(server: string, caller: Caller, deadline: number, timeoutMs: number): Promise<ListedSurface> {
  const c = caller as Caller & Partial<SessionCaller>;
  const capabilities = c.handshake?.capabilities ?? {};
  const out: { -readonly [K in keyof ListedSurface]: ListedSurface[K] } = {};
  // What is left of the server's budget (connect and tools/list spent the rest).
  const options = (list: string) => {
    const left = Math.round(deadline - performance.now());
    if (left <= 0) throw new PullError(server, `${list}: the ${timeoutMs} ms allowed for this server ran out`);
    return { timeoutMs: left, fresh: true };
  };
  type Listed = { readonly ok: true; readonly value: readonly unknown[] } | { readonly ok: false; readonly failure: ToolFailure };
  const take = (list: string, r: Listed): readonly unknown[] => {
    if (r.ok) return r.value;
    throw new PullError(server, `${list} failed: ${r.failure.message}`);
  };
  if ("prompts" in capabilities && c.listPrompts) out.prompts = take("prompts/list", await c.listPrompts(options("prompts/list")));
  if ("resources" in capabilities && c.listResources && c.listResourceTemplates) {
    out.resources = take("resources/list", await c.listResources(options("resources/list")));
    const templates = await c.listResourceTemplates(options("resources/templates/list"));
    if (templates.ok || templates.failure.rpc?.code !== -32601) out.resourceTemplates = take("resources/templates/list", templates);
  }
  return out;
}

/**
 * Pulls the catalogues of the design's external servers and writes `<design>.lock.json`.
 * Throws `DesignError` (bad design, unknown server) or `PullError` (a server failed); then nothing is written.
 */
export async function runPull(options: PullOptions): Promise<PullSummary> {
  const started = performance.now();
  const cwd = options.cwd ?? process.cwd();
  const loaded = await loadDesign(options.design, cwd, loadOptions(options.loadTimeoutMs));
  const external = loaded.design.servers.filter((s): s is ExternalServerDecl => s.kind === "external-server");
  if (external.length === 0) {
    throw new DesignError(
      { file: loaded.label },
      "declares no externalServer(...) to pull from (use it with fromMCP(...) or list it in servers)",
    );
  }
  const wanted = options.servers && options.servers.length > 0 ? new Set(options.servers) : undefined;
  for (const name of wanted ?? []) {
    if (!external.some((s) => s.name === name)) {
      throw new DesignError(
        { file: loaded.label },
        `--server ${name}: no externalServer of that name (have: ${external.map((s) => s.name).join(", ")})`,
      );
    }
  }
  const lockPath = lockPathFor(loaded.path);
  let previous: { readonly [name: string]: LockedServer } = Object.create(null);
  try {
    previous = readLock(loaded.path, lockPathFor(loaded.label))?.servers ?? previous;
  } catch (error) {
    // A corrupt lock only matters when its other entries must be kept; otherwise pull replaces it.
    if (wanted && error instanceof LockError) {
      throw new LockError(
        error.file,
        error.location,
        `${error.problem} (--server keeps the other servers' entries, so the lock must be readable; fix it, or pull every server to replace it)`,
      );
    }
    if (wanted) throw error;
  }
  const timeoutMs = options.timeoutMs ?? 20_000;
  const targets = external.filter((s) => !wanted || wanted.has(s.name));
  const ctx: PullContext = { file: loaded.label, designPath: loaded.path, cwd };
  const report = options.onProgress ?? (() => {});
  report({ kind: "connecting", servers: targets.map((s) => s.name) });
  const pulled = await Promise.allSettled(
    targets.map((s) =>
      pullServer(s, ctx, timeoutMs).then(
        (r) => {
          report({ kind: "listed", server: r.summary });
          return r;
        },
        (error: unknown) => {
          report({ kind: "failed", server: s.name, message: error instanceof Error ? error.message : String(error) });
          throw error;
        },
      ),
    ),
  );
  // A design error (a connection the design gets wrong) is the design's, whichever server met it; a
  // server that is down or answers garbage fails alone, unless none answered (then nothing is written).
  const rejected = pulled.flatMap((p, i) => (p.status === "rejected" ? [{ server: targets[i]!.name, reason: p.reason as unknown }] : []));
  const designError = rejected.find((r) => !(r.reason instanceof PullError));
  if (designError) throw designError.reason;
  const results = pulled.flatMap((p) => (p.status === "fulfilled" ? [p.value] : []));
  if (results.length === 0 && rejected.length > 0) throw rejected[0]!.reason;
  const servers: { [name: string]: LockedServer } = {};
  for (const s of external) {
    const fresh = results.find((r) => r.summary.name === s.name);
    // Servers not pulled this time (--server) and servers that failed keep what the lock had.
    const kept = Object.hasOwn(previous, s.name) ? previous[s.name] : undefined;
    if (fresh) servers[s.name] = fresh.entry;
    else if (kept) servers[s.name] = kept;
  }
  const failed: PullFailure[] = rejected.map((r) => ({
    server: r.server,
    message: (r.reason as PullError).message,
    kept: Object.hasOwn(previous, r.server),
  }));
  const warnings: string[] = [];
  for (const s of targets) {
    const names = new Set(servers[s.name]?.tools.map((t) => (t as { name: string }).name));
    for (const o of s.overrides) {
      if (!names.has(o.name))
        warnings.push(`server ${JSON.stringify(s.name)}: inline override ${JSON.stringify(o.name)} names no pulled tool`);
    }
  }
  const drift: LockDrift[] = [];
  const surfaceDrift: LockSurfaceDrift[] = [];
  for (const r of results) {
    const old = previous[r.summary.name];
    const oldPrints = old ? (old.fingerprints ?? fingerprintCatalogue(old.tools.filter(hasName)).tools) : {};
    const before = old ? snapshotsOf(old.tools) : undefined;
    const changes = withFieldChanges(compareCatalogues(oldPrints, r.entry.fingerprints), before, r.entry.tools);
    for (const d of changes) drift.push({ server: r.summary.name, ...d });
    const pinned = old ? surfaceFromLock(old).fingerprints : undefined;
    if (pinned) for (const d of compareSurface(pinned, r.entry)) surfaceDrift.push({ server: r.summary.name, ...d });
  }
  // Lint every fresh catalogue; kept servers take part so cross-server references are seen.
  const fresh = new Set(results.map((r) => r.summary.name));
  const findings = lintCatalogue(
    Object.entries(servers).map(([name, e]) => ({
      name,
      tools: e.tools.filter(hasName),
      ...(typeof e.instructions === "string" ? { instructions: e.instructions } : {}),
    })),
  ).filter((f) => fresh.has(f.server));
  // Low findings are smells that honest catalogues have too; only high and medium ones block.
  const strictFailed = options.strict === true && findings.some((f) => f.severity !== "low");
  const text = serializeLock(servers);
  const changed = !existsSync(lockPath) || readFileSync(lockPath, "utf8") !== text;
  if (changed && !options.check && !strictFailed) writeFileAtomic(lockPath, text, { within: cwd });
  const label = relative(cwd, lockPath).split(sep).join("/");
  return {
    lock: label,
    changed,
    drift,
    surfaceDrift,
    servers: results.map((r) => r.summary),
    tools: results.reduce((n, r) => n + r.summary.tools, 0),
    warnings,
    findings,
    strictFailed,
    failed,
    ms: Math.round(performance.now() - started),
  };
}

function snapshotsOf(tools: readonly unknown[]): { [tool: string]: unknown } {
  const out: { [tool: string]: unknown } = Object.create(null);
  for (const t of tools) if (hasName(t)) out[t.name] = t;
  return out;
}

function hasName(tool: unknown): tool is { readonly name: string; readonly [field: string]: unknown } {
  return typeof (tool as { name?: unknown } | null)?.name === "string";
}

/**
 * One-line summary: `toolwright pull: 3 servers (a 13, b 14, c 9), 36 tools; wrote design.lock.json (1.2 s)`;
 * a partial pull adds `; 1 failed (d: previous entry kept)`.
 */
export function pullSummaryLine(s: PullSummary, check = false): string {
  const servers = s.servers.map((x) => `${x.name} ${x.tools}`).join(", ");
  const secs = (s.ms / 1000).toFixed(1);
  const what = s.strictFailed
    ? "not written (--strict: lint findings)"
    : check
      ? s.changed
        ? "stale"
        : "up to date"
      : s.changed
        ? "wrote"
        : "unchanged";
  const lint = s.findings.length === 0 ? "" : `, ${s.findings.length} lint finding${s.findings.length === 1 ? "" : "s"}`;
  const failed =
    s.failed.length === 0
      ? ""
      : `; ${s.failed.length} failed (${s.failed.map((f) => `${f.server}: ${f.kept ? "previous entry kept" : "no previous entry"}`).join(", ")})`;
  return `toolwright pull${check ? " --check" : ""}: ${s.servers.length} server${s.servers.length === 1 ? "" : "s"} (${servers}), ${s.tools} tools${lint}${failed}; ${what} ${s.lock} (${secs} s)`;
}
