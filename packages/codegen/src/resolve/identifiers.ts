/**
 * Per-tool identifiers of a toolset: the binding stem (`localName`), the type stem (`typeName`) and
 * the member name on generated objects (`memberName`), computed once and checked for clashes. A
 * clash in a catalogue the user wrote is a design error; in a pulled one it is renamed by hash.
 */
import { createHash } from "node:crypto";
import { camelName, memberName, pascalName } from "../emit/names.js";
import { DesignError, type DesignLocation } from "../errors.js";
import type { IrTool } from "../ir/ir.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Named = Mutable<Pick<IrTool, "name" | "localName" | "typeName" | "memberName" | "nameNote">>;

const keysOf = (t: Named) => [t.localName, `type:${t.typeName}`, `member:${t.memberName}`];

// A tool's names are its own: toolset-level names never end like a tool-derived one (toolset-names.ts).
function plainNames(t: Named): void {
  t.localName = camelName(t.name);
  t.typeName = pascalName(t.name);
  t.memberName = memberName(t.localName);
  t.nameNote =
    t.memberName === t.localName
      ? undefined
      : `tool ${JSON.stringify(t.name)}: the method is \`${t.memberName}\` because \`${t.localName}\` would change how the object behaves`;
}

function hashedNames(t: Named, digits: number): void {
  const suffix = `_${createHash("sha256").update(t.name).digest("hex").slice(0, digits)}`;
  t.localName = `${camelName(t.name)}${suffix}`;
  t.typeName = `${pascalName(t.name)}${suffix}`;
  t.memberName = t.localName;
  t.nameNote = `tool ${JSON.stringify(t.name)}: the identifier has a hash suffix because another tool of the server sanitizes to the same one`;
}

/**
 * Assigns identifiers to `tools` (unique wire names, in design order). With `rename` false a clash
 * throws a `DesignError` naming both tools; with `rename` true every clashing tool whose identifier
 * is not its own wire name gets `_` + a hash of its name, so the result does not depend on order.
 */
export function assignIdentifiers(tools: readonly Named[], rename: boolean, loc: DesignLocation): void {
  for (const t of tools) plainNames(t);
  if (!rename) {
    const seen = new Map<string, string>();
    for (const t of tools) {
      for (const key of keysOf(t)) {
        const clash = seen.get(key);
        if (clash !== undefined) {
          throw new DesignError(
            { ...loc, tool: t.name },
            `its identifier ${JSON.stringify(key.replace(/^\w+:/, ""))} collides with tool ${JSON.stringify(clash)} after sanitizing; rename one`,
          );
        }
      }
      for (const key of keysOf(t)) seen.set(key, t.name);
    }
    return;
  }
  // Each round lengthens the hash of the tools still clashing; names are unique, so it ends.
  for (let digits = 6; digits <= 64; digits += 2) {
    const claims = new Map<string, Named[]>();
    for (const t of tools) for (const key of keysOf(t)) claims.set(key, [...(claims.get(key) ?? []), t]);
    const renamed = new Set<Named>();
    for (const claimants of claims.values()) {
      if (claimants.length < 2) continue;
      const owners = claimants.filter((t) => t.localName === t.name);
      for (const t of claimants) if (owners.length !== 1 || owners[0] !== t) renamed.add(t);
    }
    if (renamed.size === 0) return;
    for (const t of renamed) hashedNames(t, digits);
  }
  throw new DesignError(loc, "cannot find unique identifiers for its tools");
}
