// Summarizes a V8 .cpuprofile: self time by function (top N) and by file. Used to explain where a
// client's time goes: `node bench/lib/profile-summary.mjs <file.cpuprofile> [N]`.
import { readFileSync } from "node:fs";

const [file, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fn = new Map();
const files = new Map();
for (const [id, us] of self) {
  const n = byId.get(id);
  const cf = n.callFrame;
  const where = cf.url
    ? cf.url
        .replace(/^file:\/\//, "")
        .replace(/.*node_modules\//, "nm/")
        .replace(/.*\/work\/(main|wt\/[^/]+)\//, "")
    : "(native)";
  const key = `${cf.functionName || "(anonymous)"} ${where}:${cf.lineNumber + 1}`;
  fn.set(key, (fn.get(key) ?? 0) + us);
  files.set(where, (files.get(where) ?? 0) + us);
}
const pct = (us) => ((us / total) * 100).toFixed(1).padStart(5);
console.log(`total sampled ${(total / 1000).toFixed(0)} ms`);
console.log("-- self time by function");
for (const [k, us] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}%  ${k}`);
// Inclusive time: a node's self time plus its descendants', counted once per function per stack.
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map();
for (const [id, us] of self) {
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const cf = byId.get(cur).callFrame;
    const where = cf.url
      ? cf.url
          .replace(/^file:\/\//, "")
          .replace(/.*node_modules\//, "nm/")
          .replace(/.*\/work\/(main|wt\/[^/]+)\//, "")
      : "(native)";
    const key = `${cf.functionName || "(anonymous)"} ${where}:${cf.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}
console.log("-- inclusive time by function (project code)");
for (const [k, us] of [...inclusive]
  .filter(([k]) => process.env.ALL || k.includes("packages/"))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`${pct(us)}%  ${k}`);
console.log("-- self time by file");
for (const [k, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${pct(us)}%  ${k}`);
