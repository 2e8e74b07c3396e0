// The spread of every target over several full runs: `node bench/spread.mjs a.json b.json c.json`
// (results files written by `npm run bench`). Prints a markdown table: each run's ratio, min-max,
// in how many runs it was met and SDK v2's same ratio (min-max); each run's load average heads its column.
import { readFileSync } from "node:fs";

const runs = process.argv.slice(2).map((file) => JSON.parse(readFileSync(file, "utf8")));
if (runs.length === 0) {
  process.stderr.write("usage: node bench/spread.mjs <results.json>...\n");
  process.exit(2);
}
const load = (run) => {
  const note = run.machine.notes.find((n) => n.startsWith("Load average")) ?? "";
  const m = /([\d.]+) at the start and ([\d.]+) at the end/.exec(note);
  return m ? `${m[1]}–${m[2]}` : "?";
};
const fmt = (t) => (t?.ratio === undefined ? "–" : t.ratioOf.endsWith("count") ? String(t.ratio) : t.ratio.toFixed(2));
const head = runs.map((r, i) => `run ${i + 1} (${r.machine.date.slice(11, 16)}, load ${load(r)})`);
const out = [
  `| Target | Ratio | Limit | ${head.join(" | ")} | Min–max | Met | SDK v2 same ratio |`,
  `|---|---|---|${runs.map(() => "---:").join("|")}|---|---|---|`,
];
runs[0].targets.forEach((first, i) => {
  const same = runs.map((r) => r.targets[i]);
  const values = same.map((t) => t?.ratio).filter((v) => v !== undefined);
  const met = same.filter((t) => t?.met === true).length;
  const measured = same.filter((t) => t?.met !== undefined).length;
  const v2 = same.map((t) => t?.sdk2).filter((v) => v !== undefined);
  const v2range = v2.length ? `${Math.min(...v2).toFixed(2)}–${Math.max(...v2).toFixed(2)}` : "–";
  const range = values.length ? `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}` : "–";
  out.push(
    `| ${first.name} | ${first.ratioOf} | ${first.op} ${first.limit} | ${same.map(fmt).join(" | ")} | ${range} | ${measured ? `${met} of ${measured}` : "not measured"} | ${v2range} |`,
  );
});
process.stdout.write(`${out.join("\n")}\n`);
