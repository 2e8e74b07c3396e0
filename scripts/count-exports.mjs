#!/usr/bin/env node
// Counts the public names of each @toolwright/runtime entry (values and types), read from the entry
// files' `export { … } from` / `export type { … } from` lists, which are all the entries contain.
// Usage: node scripts/count-exports.mjs [--json]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const runtime = fileURLToPath(new URL("../packages/runtime/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(runtime, "package.json"), "utf8"));
const rows = [];
const all = new Set();
for (const [subpath, target] of Object.entries(manifest.exports)) {
  if (typeof target === "string") continue; // the JSON schema, not a module
  const src = join(runtime, target.default.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
  const text = readFileSync(src, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
  const names = { value: new Set(), type: new Set() };
  for (const m of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s*from/g)) {
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
    }
  }
  for (const m of text.matchAll(/export\s+(?:declare\s+)?(const|function|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g))
    names[m[1] === "interface" || m[1] === "type" ? "type" : "value"].add(m[2]);
  const total = names.value.size + names.type.size;
  for (const n of [...names.value, ...names.type]) all.add(n);
  rows.push({ entry: subpath, values: names.value.size, types: names.type.size, total });
}
if (process.argv.includes("--json")) console.log(JSON.stringify({ entries: rows, distinct: all.size }, null, 2));
else {
  for (const r of rows) console.log(`${r.entry.padEnd(12)} ${String(r.total).padStart(4)}  (${r.values} values, ${r.types} types)`);
  console.log(`${"all".padEnd(12)} ${String(rows.reduce((n, r) => n + r.total, 0)).padStart(4)}  (${all.size} distinct names)`);
}
