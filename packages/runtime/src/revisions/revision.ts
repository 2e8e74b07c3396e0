/**
 * The one interface a protocol revision implements, and the registry that maps names and versions
 * to revisions. Callers, the session core, the task layer, the manager and the server ask a
 * `Revision` what to do; they never compare a version string. Each revision lives in its own folder
 * beside this file (`legacy/`, `2026-07-28/`); docs/revisions.md says how to add one.
 */
import type { Outcome } from "../protocol/mcp-session.js";
import type { CallToolResult, Implementation } from "../protocol/mcp-types.js";

/**
 * The server's one task record, whatever the revision: the flows (legacy-tasks.ts,
 * task-server.ts) extend it with their own bookkeeping; `Revision.taskStatus` gives its wire shape.
 */
export interface TaskRecord {
  readonly taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  statusMessage?: string;
  readonly createdAt: string;
  lastUpdatedAt: string;
  /** How long the task and its result are kept, ms. */
  readonly ttlMs: number;
  /** The poll interval the server suggests, ms. */
  readonly pollIntervalMs: number;
  readonly controller: AbortController;
  result?: CallToolResult;
  /** A JSON-RPC error the task ended with (only deliberate handler errors keep their message). */
  error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** What the client says about itself on every request of a stateless revision. */
export interface RevisionIdentity {
  readonly capabilities: { readonly [key: string]: unknown };
  readonly clientInfo: Implementation;
}

/**
 * Everything that differs between protocol revisions, client and server side. A new revision is a
 * folder with one object of this type and one `registerRevision` line (or one entry in `BUILT_IN`).
 */
export interface Revision {
  /** The name `mcp.json` and the `era` option use: `legacy`, or the revision's date. */
  readonly name: string;
  /** The protocol versions of this revision, newest first. */
  readonly versions: readonly string[];
  /**
   * How a session opens: the `initialize` handshake (a session negotiated once, state on the
   * server), or the `server/discover` probe of a stateless revision (every request carries its
   * protocol fields in `_meta`).
   */
  readonly handshake: "initialize" | "discover";

  // ---- caller side ----
  /** The per-request `_meta` protocol fields, or undefined when the session negotiated them once. */
  requestMeta(version: string, identity: RevisionIdentity): { [key: string]: unknown } | undefined;
  /** True when HTTP requests carry routing headers (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) planned from the tool list. */
  readonly routingHeaders: boolean;
  /**
   * Whether a call must list tools first: for header plans (`plansFromToolList`, HTTP) or to learn
   * each tool's task support on a server that runs tool calls as tasks.
   */
  needsToolList(capabilities: { readonly [key: string]: unknown }, plansFromToolList: boolean): boolean;
  /**
   * The shape of tasks: `client-augmented` (the client asks with `task: { ttl }` when the tool
   * allows it, then `tasks/result` fetches the payload) or `server-decided` (a `resultType: "task"`
   * answer whose terminal `tasks/get` inlines the result, input through `tasks/update`).
   */
  readonly tasks: "client-augmented" | "server-decided";
  /** How resource subscriptions are delivered: the `subscriptions/listen` request, or the session's notification stream. */
  readonly subscriptions: "listen" | "notification-stream";
  /** The cheapest request that proves the server is alive. */
  readonly liveness: "ping" | "server/discover";
  /** Checks a `tools/call` result and gives it its `CallToolResult` shape. */
  decodeToolResult(raw: unknown): Outcome<CallToolResult>;

  // ---- server side ----
  /** The result a server answers for `method`, in this revision's wire shape (`result` is what the handler returned). */
  encodeResult(method: string, result: unknown): unknown;
  /**
   * A tool's finished `CallToolResult` in this revision's shape, wherever it goes: the `tools/call`
   * answer or a task's stored result. Absent when the shape is the handler's own (no extra step on
   * the call path).
   */
  readonly encodeToolResult?: ((result: CallToolResult) => CallToolResult) | undefined;
  /** A task's status in this revision's wire shape (`tasks/get`, `tasks/list`, the `CreateTaskResult`). */
  taskStatus(task: TaskRecord): { [key: string]: unknown };
}

/** The revisions known to this process, in registration order. */
const registered: Revision[] = [];
const byName = new Map<string, Revision>();
const byVersion = new Map<string, Revision>();
let statelessVersions: readonly string[] = [];

/**
 * Makes a revision known to callers and servers in this process. Names and versions are unique:
 * registering a second revision under a taken name or version is a programmer error and throws.
 */
export function registerRevision(revision: Revision): void {
  if (byName.has(revision.name)) throw new TypeError(`a protocol revision named ${JSON.stringify(revision.name)} is already registered`);
  for (const version of revision.versions)
    if (byVersion.has(version)) throw new TypeError(`protocol version ${JSON.stringify(version)} is already registered`);
  registered.push(revision);
  byName.set(revision.name, revision);
  for (const version of revision.versions) byVersion.set(version, revision);
  // Newest first: ISO dates sort as strings, and the discover probe offers the newest it speaks.
  statelessVersions = Object.freeze(
    registered
      .filter((r) => r.handshake === "discover")
      .flatMap((r) => r.versions)
      .sort()
      .reverse(),
  );
}

/** Every registered revision. */
export function listRevisions(): readonly Revision[] {
  return registered;
}

/** The revision registered under `name`, if any. */
export function revisionNamed(name: string): Revision | undefined {
  return byName.get(name);
}

/** The revision a protocol version belongs to, if any. */
export function revisionForVersion(version: string): Revision | undefined {
  return byVersion.get(version);
}

/** Every version of every stateless (`server/discover`) revision, newest first. */
export function discoverVersions(): readonly string[] {
  return statelessVersions;
}

/** The revision of a live session (its `era`). A session of an unknown name speaks the legacy family. */
export function revisionOf(session: { readonly era: string }): Revision {
  return byName.get(session.era) ?? (byName.get(LEGACY_NAME) as Revision);
}

/** The name of the legacy `initialize` family, the fallback of every negotiation. */
export const LEGACY_NAME = "legacy";
