/**
 * Renders a report as one self-contained HTML file: inline CSS, no script, no external resource,
 * and a Content-Security-Policy that forbids scripts anyway. Every string from a server is hostile:
 * it is HTML-escaped, and invisible or bidirectional characters are shown as visible code points
 * so they cannot hide text or reorder the page. Changed text is shown side by side, word-diffed.
 */

import { type FieldChange, type LintFinding, markHidden } from "@toolwright/runtime/catalogue";
import { diffWordsWithSpace } from "diff";
import type { ReportData, ReportServer, ReportTool } from "./report-data.js";

const HTML_ESCAPES: { readonly [c: string]: string } = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
/** Texts longer than this are diffed on their first part only (word diffs grow with length squared). */
const DIFF_LIMIT = 20_000;

/** Escapes text for HTML and makes hidden characters visible as `U+XXXX` marks. */
export function escapeHtml(value: string): string {
  const escaped = value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
  return markHidden(escaped, (code) => `<span class="cp" title="hidden character">${code}</span>`);
}

const e = escapeHtml;

function badge(kind: string, label: string): string {
  return `<span class="badge ${e(kind)}">${e(label)}</span>`;
}

function findingRows(findings: readonly LintFinding[]): string {
  if (findings.length === 0) return `<p class="none">No lint findings.</p>`;
  const rows = findings.map(
    (f) =>
      `<tr class="finding"><td>${badge(f.severity, f.severity)}</td><td>${e(f.rule)}</td><td>${e(f.server)}</td><td>${e(f.tool ?? `(${f.kind})`)}</td><td><code>${e(f.field)}</code></td><td>${e(f.message)}</td><td><code>${e(f.excerpt)}</code></td></tr>`,
  );
  return `<table class="findings"><thead><tr><th>severity</th><th>rule</th><th>server</th><th>tool</th><th>field</th><th>finding</th><th>text</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/** Side-by-side word diff of one field: the locked text left, the live text right. */
export function sideBySide(change: FieldChange): string {
  const before = (change.before ?? "").slice(0, DIFF_LIMIT);
  const after = (change.after ?? "").slice(0, DIFF_LIMIT);
  let left = "";
  let right = "";
  for (const part of diffWordsWithSpace(before, after)) {
    if (part.added) right += `<ins>${e(part.value)}</ins>`;
    else if (part.removed) left += `<del>${e(part.value)}</del>`;
    else {
      left += e(part.value);
      right += e(part.value);
    }
  }
  const absent = `<span class="absent">(absent)</span>`;
  return `<table class="diff"><thead><tr><th colspan="2"><code>${e(change.field)}</code></th></tr><tr><th>locked</th><th>live</th></tr></thead><tbody><tr><td class="old">${change.before === undefined ? absent : left}</td><td class="new">${change.after === undefined ? absent : right}</td></tr></tbody></table>`;
}

function toolRow(t: ReportTool): string {
  const lint =
    t.findings.length === 0
      ? ""
      : badge(t.findings[0]?.severity ?? "low", `${t.findings.length} finding${t.findings.length === 1 ? "" : "s"}`);
  return `<tr class="tool status-${t.status}"><td><code>${e(t.name)}</code>${t.title ? `<div class="title">${e(t.title)}</div>` : ""}</td><td>${badge(`risk-${t.risk}`, t.risk)}</td><td>${badge(t.status, t.status)}</td><td>${lint}</td><td class="desc">${e(t.description ?? "")}</td></tr>`;
}

function serverSection(s: ReportServer): string {
  const info = s.serverInfo ? ` <span class="muted">${e(s.serverInfo.name)} ${e(s.serverInfo.version)}</span>` : "";
  const source = s.source === "live" ? badge("live", "live") : badge("lock", "from the lock");
  const changed = s.tools.filter((t) => t.status === "changed");
  const diffs = changed.map(
    (t) =>
      `<div class="change"><h4>${e(t.name)}</h4>${t.fields.map(sideBySide).join("") || `<p class="muted">The entry differs only in its recorded fingerprint.</p>`}</div>`,
  );
  return [
    `<section class="server" id="server-${e(s.name)}">`,
    `<h2>${e(s.name)}${info} ${source}</h2>`,
    s.error ? `<p class="error">${e(s.error)}</p>` : "",
    s.instructions !== undefined
      ? `<details><summary>Instructions (${s.instructions.length} characters)</summary><pre>${e(s.instructions)}</pre></details>`
      : "",
    s.findings.length > 0 ? findingRows(s.findings) : "",
    s.instructionsChange ? `<div class="change"><h4>instructions</h4>${sideBySide(s.instructionsChange)}</div>` : "",
    `<table class="tools"><thead><tr><th>tool</th><th>risk</th><th>since the lock</th><th>lint</th><th>description</th></tr></thead><tbody>${s.tools.map(toolRow).join("")}</tbody></table>`,
    diffs.length > 0 ? `<h3>Changed since the lock</h3>${diffs.join("")}` : "",
    "</section>",
  ].join("\n");
}

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1b1f24;background:#fff}
h1{font-size:1.6em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;width:100%;margin:.6em 0}th,td{border:1px solid #d0d7de;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f6f8fa}code,pre{font:12px ui-monospace,monospace;white-space:pre-wrap;word-break:break-word}
.badge{display:inline-block;border-radius:1em;padding:0 .6em;font-size:12px;background:#eaeef2}
.high,.risk-high,.changed,.removed{background:#ffebe9;color:#82071e}.medium,.risk-medium,.added,.unlocked{background:#fff8c5;color:#633c01}
.low,.risk-low,.unchanged,.live{background:#dafbe1;color:#116329}.lock{background:#ddf4ff;color:#0a3069}
.diff td{width:50%;white-space:pre-wrap;word-break:break-word;font:12px ui-monospace,monospace}
del{background:#ffcecb;text-decoration:line-through}ins{background:#aceebb;text-decoration:none}
.cp{border:1px solid #cf222e;color:#cf222e;border-radius:3px;padding:0 2px;font-size:10px}
.error{color:#82071e}.muted,.absent,.none{color:#656d76}.title{color:#656d76;font-size:12px}.desc{max-width:40em}
`;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The HTML document. Deterministic for the same data. */
export function renderReportHtml(data: ReportData): string {
  const tools = data.servers.reduce((n, s) => n + s.tools.length, 0);
  const drifted = data.servers.reduce((n, s) => n + s.tools.filter((t) => t.status !== "unchanged" && t.status !== "unlocked").length, 0);
  const count = (sev: string) => data.findings.filter((f) => f.severity === sev).length;
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">`,
    '<meta name="referrer" content="no-referrer">',
    `<title>Toolwright catalogue report: ${e(data.design)}</title>`,
    `<style>${CSS}</style></head><body>`,
    `<h1>Catalogue report: <code>${e(data.design)}</code></h1>`,
    `<p class="muted">Lock <code>${e(data.lock)}</code>${data.hasLock ? "" : " (none: every tool is unlocked)"}; generated ${e(data.generatedAt)}.</p>`,
    `<p id="summary">${plural(data.servers.length, "server")}, ${plural(tools, "tool")}, ${drifted} changed since the lock; lint findings: ${count("high")} high, ${count("medium")} medium, ${count("low")} low.</p>`,
    `<section id="findings"><h2>Lint findings</h2>${findingRows(data.findings)}</section>`,
    ...data.servers.map(serverSection),
    "</body></html>",
    "",
  ].join("\n");
}
