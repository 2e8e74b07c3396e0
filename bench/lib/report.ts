/**
 * Output of a run: a markdown table, a JSON file, and an SVG bar chart of the Toolwright ratios.
 */
import type { Row } from "./stats.ts";
import type { TargetCheck } from "./targets.ts";

/** Facts about the machine and the run. */
export interface Machine {
  readonly node: string;
  readonly cores: number;
  readonly cpu: string;
  readonly platform: string;
  readonly date: string;
  readonly mode: "full" | "quick";
  readonly durationS: number;
  readonly notes: readonly string[];
}

const fmt = (v: number | undefined, digits = 2): string => {
  if (v === undefined || !Number.isFinite(v)) return "–";
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString("en-US");
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(digits);
};

const ratio = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? "–" : `${v.toFixed(2)}×`);

/** The markdown report. */
export function markdown(machine: Machine, rows: readonly Row[], targets: readonly TargetCheck[]): string {
  const out: string[] = [];
  out.push(`# Toolwright benchmark (${machine.mode})`, "");
  out.push(
    `Machine: Node ${machine.node}, ${machine.cores} cores (${machine.cpu}), ${machine.platform}. Run ${machine.date}, ${machine.durationS.toFixed(0)} s.`,
    "",
  );
  out.push("Each value is the median over fresh-process repetitions, with min–max. Clients alternate inside each repetition (in reverse");
  out.push(
    "order every other one for stdio and HTTP; the raw-server stdio pinned and 64-in-flight measures have more, see below), and a ratio",
  );
  out.push("is the median of the per-repetition ratios (the ratio of medians where repetitions do not pair), from this run only:");
  out.push(
    "`×floor` = this client / the raw hand-written client; `×SDK` = this client / the official SDK client 1.32.2; `×SDK v2` = this client / `@modelcontextprotocol/client` 2.x.",
  );
  out.push("For calls/s higher is better; for everything else lower is better.", "");
  for (const note of machine.notes) out.push(`- ${note}`);
  if (machine.notes.length) out.push("");
  out.push(
    "## Targets",
    "",
    "Every target of issue 17 (and the older ones of issue 7). `SDK v2 same ratio` puts SDK v2 where Toolwright is, for comparison.",
    "",
    "| Target | Ratio | Measured | Limit | Met | SDK v2 same ratio |",
    "|---|---|---|---|---|---|",
  );
  for (const t of targets) {
    const met = t.met === undefined ? "not measured" : t.met ? "yes" : "**no**";
    const measured = t.ratio === undefined ? "–" : t.ratioOf.endsWith("count") ? String(t.ratio) : `${t.ratio.toFixed(2)}×`;
    out.push(`| ${t.name} | ${t.ratioOf} | ${measured} | ${t.op} ${t.limit} | ${met} | ${ratio(t.sdk2)} |`);
  }
  out.push("");
  const sections = [...new Set(rows.map((r) => r.section))];
  for (const section of sections) {
    const inSection = rows.filter((x) => x.section === section);
    // The server section compares servers, tmcp among them: it gets a ×tmcp column.
    const tmcp = inSection.some((r) => r.client === "tmcp");
    out.push(
      `## ${section}`,
      "",
      `| Measure | Server | Client | Median | Min–max | Unit | ×floor |${tmcp ? " ×tmcp |" : ""} ×SDK | ×SDK v2 |`,
      `|---|---|---|---:|---:|---|---:|${tmcp ? "---:|" : ""}---:|---:|`,
    );
    for (const r of inSection) {
      out.push(
        `| ${r.measure} | ${r.server} | ${r.label} | ${fmt(r.median)} | ${fmt(r.min)}–${fmt(r.max)} | ${r.unit} | ${ratio(r.vsFloor)} |${tmcp ? ` ${ratio(r.vsTmcp)} |` : ""} ${ratio(r.vsSdk)} | ${ratio(r.vsSdk2)} |`,
      );
    }
    out.push("");
  }
  return `${out.join("\n")}\n`;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A horizontal bar chart: one bar per target ratio, on a log scale, with the limit marked. */
export function svgChart(machine: Machine, targets: readonly TargetCheck[]): string {
  const shown = targets.filter((t) => t.ratio !== undefined && t.op !== "==" && (t.ratio as number) > 0);
  const rowH = 34;
  const left = 430;
  const width = 980;
  const plotW = width - left - 70;
  const top = 60;
  const height = top + shown.length * rowH + 50;
  const lo = Math.log10(0.05);
  const hi = Math.log10(20);
  const x = (v: number) => left + ((Math.log10(Math.min(20, Math.max(0.05, v))) - lo) / (hi - lo)) * plotW;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="100%" height="100%" fill="#fff"/>`);
  parts.push(
    `<text x="12" y="22" font-size="15" font-weight="bold">Toolwright ratios vs the raw floor and the official SDK (${machine.mode} run)</text>`,
  );
  parts.push(
    `<text x="12" y="42" fill="#555">Node ${esc(machine.node)}, ${machine.cores} cores, ${esc(machine.date)}. Log scale; tick = target limit; green = met, red = missed; thin blue = SDK v2 in Toolwright's place.</text>`,
  );
  for (const tick of [0.1, 0.2, 0.5, 1, 2, 5, 10]) {
    const tx = x(tick);
    parts.push(`<line x1="${tx.toFixed(1)}" y1="${top - 6}" x2="${tx.toFixed(1)}" y2="${height - 40}" stroke="#e4e4e4"/>`);
    parts.push(`<text x="${tx.toFixed(1)}" y="${height - 24}" text-anchor="middle" fill="#555">${tick}×</text>`);
  }
  shown.forEach((t, i) => {
    const y = top + i * rowH;
    const v = t.ratio as number;
    const x0 = x(1);
    const x1 = x(v);
    const color = t.met ? "#2e8b57" : "#c0392b";
    parts.push(`<text x="${left - 8}" y="${y + 14}" text-anchor="end">${esc(t.name)}</text>`);
    parts.push(
      `<text x="${left - 8}" y="${y + 27}" text-anchor="end" fill="#777" font-size="11">${esc(t.ratioOf)}, target ${t.op} ${t.limit}</text>`,
    );
    parts.push(
      `<rect x="${Math.min(x0, x1).toFixed(1)}" y="${y + 5}" width="${Math.max(1, Math.abs(x1 - x0)).toFixed(1)}" height="20" fill="${color}"/>`,
    );
    const lx = x(t.limit);
    parts.push(`<line x1="${lx.toFixed(1)}" y1="${y + 1}" x2="${lx.toFixed(1)}" y2="${y + 29}" stroke="#000" stroke-width="2"/>`);
    parts.push(`<text x="${(Math.max(x0, x1) + 6).toFixed(1)}" y="${y + 19}">${v.toFixed(2)}×</text>`);
    if (t.sdk2 !== undefined && t.sdk2 > 0) {
      const s1 = x(t.sdk2);
      parts.push(
        `<rect x="${Math.min(x0, s1).toFixed(1)}" y="${y + 26}" width="${Math.max(1, Math.abs(s1 - x0)).toFixed(1)}" height="5" fill="#2f6fb5"><title>SDK v2: ${t.sdk2.toFixed(2)}×</title></rect>`,
      );
    }
  });
  parts.push(`<line x1="${x(1).toFixed(1)}" y1="${top - 6}" x2="${x(1).toFixed(1)}" y2="${height - 40}" stroke="#888"/>`);
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
