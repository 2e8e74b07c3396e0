/**
 * The manager's tool registry: every exposed tool under its `server.tool` id and a provider-safe
 * name chosen by the collision policy. Allow and deny lists are applied here, on every refresh.
 */

import type { ToolSpec } from "../caller/tool-spec.js";
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import type { Decoder } from "../schema/codec.js";
import type { CollisionPolicy } from "./config-types.js";
import { chooseExposedName, uniqueName, wantedName } from "./names.js";
import { riskOf, type ToolRisk } from "./risk.js";

/** One tool as the manager exposes it. */
export interface ManagedTool {
  /** `server.tool`. */
  readonly id: string;
  readonly server: string;
  /** Wire name sent in `tools/call`. */
  readonly name: string;
  /** Model-facing name: `[A-Za-z0-9_-]{1,64}`, unique in this registry. */
  readonly exposedName: string;
  readonly descriptor: ToolDescriptor;
  readonly risk: ToolRisk;
}

/** What changed for one server after a refresh. Names are wire names. */
export interface ToolsDiff {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
}

/** How one server's tools are filtered and named. */
export interface ServerToolPolicy {
  readonly allowTools?: readonly string[] | undefined;
  readonly denyTools?: readonly string[] | undefined;
  readonly collisionPolicy: CollisionPolicy;
  readonly trusted: boolean;
}

/**
 * Matches a tool name against a pattern where `*` stands for any run of characters. Each literal
 * piece is found leftmost in turn (enough for `*`-only globs), so a check costs O(name × pattern):
 * a RegExp of `.*` runs backtracks polynomially, and the name comes from a server (`*a*a*a*a*b`
 * against 200 "a"s ran for minutes).
 */
export function matchesPattern(name: string, pattern: string): boolean {
  if (!pattern.includes("*")) return name === pattern;
  const pieces = pattern.split("*");
  const first = pieces[0] as string;
  const last = pieces[pieces.length - 1] as string;
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  const end = name.length - last.length;
  let at = first.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = name.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** True when allow and deny lists let a tool through. */
export function isToolVisible(name: string, policy: Pick<ServerToolPolicy, "allowTools" | "denyTools">): boolean {
  if (policy.allowTools && !policy.allowTools.some((p) => matchesPattern(name, p))) return false;
  if (policy.denyTools?.some((p) => matchesPattern(name, p))) return false;
  return true;
}

/** The result of replacing one server's tools. */
export type ReplaceOutcome =
  | {
      readonly ok: true;
      readonly diff: ToolsDiff;
      readonly hidden: number;
      readonly warnings: readonly string[];
      /** Other servers' sanitized tools whose exposed name a real name of this server reclaimed. */
      readonly moved: readonly { readonly server: string; readonly name: string }[];
    }
  | { readonly ok: false; readonly message: string };

/** The registry. */
export interface ToolRegistry {
  all(): readonly ManagedTool[];
  ofServer(server: string): readonly ManagedTool[];
  /** Looks up by id (`server.tool`) or exposed name. */
  lookup(idOrName: string): ManagedTool | undefined;
  /**
   * Replaces a server's tools with `tools` filtered by `policy`. With `strict` (a fresh connect),
   * a collision under policy `error` rejects the whole server; otherwise only that tool is skipped.
   */
  replace(server: string, tools: readonly ToolDescriptor[], policy: ServerToolPolicy, strict: boolean): ReplaceOutcome;
  /** Removes a server's tools and returns their wire names. */
  remove(server: string): readonly string[];
}

/** Descriptors as the server sent them: the same JSON text means no change worth telling a listener. */
const same = (a: ToolDescriptor, b: ToolDescriptor) => JSON.stringify(a) === JSON.stringify(b);

/** Creates an empty registry. */
export function createToolRegistry(): ToolRegistry {
  // Two indexes over one set: ids (`server.tool`, what code calls) and exposed names (what a model
  // calls). Both are Maps: names come from servers, and "__proto__" is a name like any other.
  const byId = new Map<string, ManagedTool>();
  const byName = new Map<string, ManagedTool>();

  function ofServer(server: string): ManagedTool[] {
    return [...byId.values()].filter((t) => t.server === server);
  }

  return {
    all: () => [...byId.values()],
    ofServer,
    lookup: (key) => byId.get(key) ?? byName.get(key),
    replace(server, tools, policy, strict) {
      // Computed against the other servers' names first, committed at the end: a strict failure
      // (collision policy "error") returns before the registry changed at all.
      const before = new Map(ofServer(server).map((t) => [t.name, t]));
      const visible = tools.filter((t) => isToolVisible(t.name, policy));
      const owners = new Map<string, string>();
      for (const t of byId.values()) if (t.server !== server && !owners.has(t.name)) owners.set(t.name, t.server);
      const others = new Map([...byName].filter(([, t]) => t.server !== server));
      const names = new Set(others.keys());
      // Sanitized tools of other servers that hold a real name of this server give it up (renamed on commit).
      const moves: { tool: ManagedTool; to: string }[] = [];
      const next: ManagedTool[] = [];
      const warnings: string[] = [];
      const wanted = (d: ToolDescriptor) => wantedName(server, d.name, policy.collisionPolicy, owners.get(d.name));
      // How many of this server's tools ask for each name: a name two tools want goes to neither bare.
      const wants = new Map<string, number>();
      for (const d of visible) wants.set(wanted(d), (wants.get(wanted(d)) ?? 0) + 1);
      // Exact names (exposed as the server spells them) are placed first, so a sanitized name can
      // never take a real one, whatever order the server lists them in.
      const exact = (d: ToolDescriptor) => wanted(d) === d.name;
      const ordered = [...visible.filter(exact), ...visible.filter((d) => !exact(d))];
      for (const descriptor of ordered) {
        const id = `${server}.${descriptor.name}`;
        const kept = before.get(descriptor.name);
        const shared = !exact(descriptor) && (wants.get(wanted(descriptor)) ?? 0) > 1;
        const holder = exact(descriptor) ? others.get(descriptor.name) : undefined;
        // Only a sanitized holder moves; a real name held by another server is a collision, which
        // the policy below decides (prefix, error).
        if (holder && holder.exposedName !== holder.name && !moves.some((m) => m.tool === holder)) {
          const to = uniqueName(holder.exposedName, holder.id, (n) => n === holder.exposedName || names.has(n));
          moves.push({ tool: holder, to });
          names.delete(holder.exposedName);
          names.add(to);
        }
        // An exposed name never moves while its tool stays registered, unless a real name reclaims it.
        let exposedName = kept?.exposedName;
        if (exposedName === undefined || names.has(exposedName) || (shared && exposedName === wanted(descriptor))) {
          const choice = chooseExposedName(
            server,
            descriptor.name,
            policy.collisionPolicy,
            owners.get(descriptor.name),
            (n) => names.has(n),
            shared,
          );
          if (!choice.ok) {
            // A fresh connect refuses the server; a refresh skips this tool and keeps the server up.
            if (strict) return { ok: false, message: choice.message };
            warnings.push(choice.message);
            continue;
          }
          exposedName = choice.name;
        }
        names.add(exposedName);
        next.push({ id, server, name: descriptor.name, exposedName, descriptor, risk: riskOf(descriptor.annotations, policy.trusted) });
      }
      // Listing order is kept for everything that reads the registry.
      const position = new Map(visible.map((d, i) => [d.name, i]));
      next.sort((a, b) => (position.get(a.name) ?? 0) - (position.get(b.name) ?? 0));
      for (const t of before.values()) {
        byId.delete(t.id);
        byName.delete(t.exposedName);
      }
      for (const { tool, to } of moves) {
        byName.delete(tool.exposedName);
        const renamed = { ...tool, exposedName: to };
        byId.set(tool.id, renamed);
        byName.set(to, renamed);
      }
      for (const t of next) {
        byId.set(t.id, t);
        byName.set(t.exposedName, t);
      }
      const nextNames = new Set(next.map((t) => t.name));
      const diff: ToolsDiff = {
        added: next.filter((t) => !before.has(t.name)).map((t) => t.name),
        removed: [...before.keys()].filter((n) => !nextNames.has(n)),
        changed: next
          .filter((t) => {
            const old = before.get(t.name);
            return old !== undefined && !same(old.descriptor, t.descriptor);
          })
          .map((t) => t.name),
      };
      // The servers whose tools were renamed must re-sync their runtime mirrors and listeners.
      const moved = moves.map((m) => ({ server: m.tool.server, name: m.tool.name }));
      return { ok: true, diff, hidden: tools.length - visible.length, warnings, moved };
    },
    remove(server) {
      const gone = ofServer(server);
      for (const t of gone) {
        byId.delete(t.id);
        byName.delete(t.exposedName);
      }
      return gone.map((t) => t.name);
    },
  };
}

/**
 * The runtime-registry spec of a managed tool (toolset = server). `decoderFor` (the manager's
 * validator) checks arguments against the live input schema; without one only "an object" is checked.
 */
export function runtimeSpecOf(
  t: ManagedTool,
  decoderFor?: (schema: ManagedTool["descriptor"]["inputSchema"]) => Decoder<unknown> | undefined,
): ToolSpec {
  const d = t.descriptor;
  return {
    id: t.id,
    toolset: t.server,
    name: t.name,
    providerName: t.exposedName,
    ...(d.description !== undefined ? { description: d.description } : {}),
    ...(d.title !== undefined ? { title: d.title } : {}),
    inputSchema: d.inputSchema,
    ...(d.outputSchema ? { outputSchema: d.outputSchema } : {}),
    // `_meta` travels as the spec's meta: MCP Apps visibility (app-only tools) is read from it.
    ...(d._meta ? { meta: d._meta } : {}),
    annotations: { readOnly: t.risk.readOnly, destructive: t.risk.destructive, idempotent: t.risk.idempotent, openWorld: t.risk.openWorld },
    // The object check first: MCP arguments are an object, whether or not a validator is loaded.
    decodePayload: (value: unknown) => {
      if (typeof value !== "object" || value === null || Array.isArray(value))
        return { ok: false, issues: [{ field: "", constraint: "invalid_field_type", expected: "object" }] };
      return decoderFor?.(d.inputSchema)?.(value) ?? { ok: true, value };
    },
  };
}
