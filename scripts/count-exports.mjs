#!/usr/bin/env node
// Counts the public names of each @toolwright/runtime entry (values and types), read from the entry
// files' `export { … } from` / `export type { … } from` lists, which are all the entries contain,
// plus the names an entry declares itself. Also lists the names exported from more than one entry
// (only the generated-code tables may repeat a name: test/architecture/public-surface.test.ts).
// Usage: node scripts/count-exports.mjs [--json]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const runtime = fileURLToPath(new URL("../packages/runtime/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(runtime, "package.json"), "utf8"));
const rows = [];
const all = new Set();
/** name → the entries exporting it */
const entriesOf = new Map();
for (const [subpath, target] of Object.entries(manifest.exports)) {
  if (typeof target === "string") continue; // the JSON schema, not a module
  const src = join(runtime, target.default.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
  const text = readFileSync(src, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
  const names = { value: new Set(), type: new Set() };
  /** name → the file it is re-exported from ("." for a name the entry declares) */
  const from = {};
  for (const m of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s*from\s*"([^"]+)"/g)) {
    for (const raw of m[2].split(",")) {
      const item = raw.trim();
      if (!item) continue;
      const typeOnly = Boolean(m[1]) || item.startsWith("type ");
      const name = item
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)
        .pop()
        .trim();
      names[typeOnly ? "type" : "value"].add(name);
      from[name] = m[3];
    }
  }
  for (const m of text.matchAll(/export\s+(?:declare\s+)?(?:async\s+)?(const|function|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g)) {
    names[m[1] === "interface" || m[1] === "type" ? "type" : "value"].add(m[2]);
    from[m[2]] = ".";
  }
  const total = names.value.size + names.type.size;
  for (const n of [...names.value, ...names.type]) {
    all.add(n);
    entriesOf.set(n, [...(entriesOf.get(n) ?? []), subpath]);
  }
  rows.push({ entry: subpath, values: names.value.size, types: names.type.size, total, from });
}
const repeated = [...entriesOf]
  .filter(([, entries]) => entries.length > 1)
  .map(([name, entries]) => ({ name, entries }))
  .sort((a, b) => a.name.localeCompare(b.name));
if (process.argv.includes("--json")) console.log(JSON.stringify({ entries: rows, distinct: all.size, repeated }, null, 2));
else {
  for (const r of rows) console.log(`${r.entry.padEnd(18)} ${String(r.total).padStart(4)}  (${r.values} values, ${r.types} types)`);
  console.log(`${"all".padEnd(18)} ${String(rows.reduce((n, r) => n + r.total, 0)).padStart(4)}  (${all.size} distinct names)`);
  console.log(`${"in >1 entry".padEnd(18)} ${String(repeated.length).padStart(4)}  ${repeated.map((r) => r.name).join(", ")}`);
}
