/**
 * The poisoning lint measured on labelled corpora: real tools/list entries of popular MCP servers
 * from npm (`fixtures/lint-honest-catalogues.json`, dumped from each server with its version
 * recorded) plus the committed examples/catalogues lock (server-everything, -filesystem,
 * -memory) as the honest side; `fixtures/lint-poisoned.json` (written with the rules) and
 * `fixtures/lint-poisoned-held-out.json` (written after the rules were done, never tuned on) as
 * the poisoned side. A finding counts when its severity is high or medium: those are the ones
 * the lint means as alarms; low findings are smells (a long description, a non-ASCII name that
 * cannot pass for another, a secret file merely named) and are counted apart.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type LintFinding, type LintServer, lintCatalogue } from "@toolwright/runtime/catalogue";
import { describe, expect, it } from "vitest";

type Tool = LintServer["tools"][number];
interface PoisonedCase {
  readonly class: string;
  readonly title: string;
  readonly tool?: Tool;
  readonly server?: LintServer;
}

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, "fixtures", name), "utf8"));
const counts = (f: LintFinding) => f.severity === "high" || f.severity === "medium";
/** A neighbour server whose tools a look-alike name can imitate. */
const neighbour: LintServer = {
  name: "mail",
  tools: ["send_email", "read_file", "echo", "search"].map((name) => ({ name, inputSchema: { type: "object" } })),
};

function honestServers(): LintServer[] {
  const npm = fixture("lint-honest-catalogues.json") as { servers: { source: string; tools: Tool[] }[] };
  const lock = JSON.parse(readFileSync(join(__dirname, "../../examples/catalogues/design.lock.json"), "utf8")) as {
    servers: Record<string, { tools: Tool[]; instructions?: string }>;
  };
  return [
    ...npm.servers.map((s) => ({ name: s.source, tools: s.tools })),
    ...Object.entries(lock.servers).map(([name, s]) => ({
      name: `examples/catalogues:${name}`,
      tools: s.tools,
      instructions: s.instructions,
    })),
  ];
}

/** Per poisoned case: found when the lint gives a counted finding for the case's own server. */
function recall(cases: readonly PoisonedCase[]): { found: number; missed: string[]; byClass: Map<string, [number, number]> } {
  const missed: string[] = [];
  const byClass = new Map<string, [number, number]>();
  for (const c of cases) {
    const server = c.server ?? { name: "poisoned", tools: [c.tool as Tool] };
    const hit = lintCatalogue([server, neighbour]).some((f) => f.server === server.name && counts(f));
    const row = byClass.get(c.class) ?? [0, 0];
    byClass.set(c.class, [row[0] + (hit ? 1 : 0), row[1] + 1]);
    if (!hit) missed.push(`${c.class}: ${c.title}`);
  }
  return { found: cases.length - missed.length, missed, byClass };
}

describe("precision and recall on labelled corpora", () => {
  const honest = honestServers();
  const poisoned = fixture("lint-poisoned.json").cases as PoisonedCase[];
  const heldOut = fixture("lint-poisoned-held-out.json").cases as PoisonedCase[];

  it("finds every poisoned case and raises alarms on at most 1% of honest tools", () => {
    // Each honest server alone, as `pull` lints a freshly pulled catalogue, and all together (as a
    // design with several servers is linted) for cross-server references.
    const alone = honest.flatMap((s) => lintCatalogue([s]));
    const together = lintCatalogue(honest);
    const tools = honest.reduce((n, s) => n + s.tools.length, 0);
    const flagged = new Set(alone.filter(counts).map((f) => `${f.server}/${f.tool ?? "(instructions)"}`));
    const flaggedTogether = new Set(together.filter(counts).map((f) => `${f.server}/${f.tool ?? "(instructions)"}`));
    const low = new Set(alone.filter((f) => f.severity === "low").map((f) => `${f.server}/${f.tool}`));
    const main = recall(poisoned);
    const held = recall(heldOut);
    const tp = main.found + held.found;
    const fp = flagged.size;
    const rows = [
      [
        "honest tools (real servers)",
        String(tools),
        `${flagged.size} with high/medium findings (${((100 * flagged.size) / tools).toFixed(2)}%)`,
      ],
      ["  linted all together", String(tools), `${flaggedTogether.size} with high/medium findings`],
      ["  low findings only (smells)", "", `${low.size} tools`],
      ["poisoned corpus", String(poisoned.length), `recall ${((100 * main.found) / poisoned.length).toFixed(1)}%`],
      ["held-out poisoned corpus", String(heldOut.length), `recall ${((100 * held.found) / heldOut.length).toFixed(1)}%`],
      ["precision (both poisoned sets vs honest)", "", `${((100 * tp) / (tp + fp)).toFixed(1)}%`],
    ];
    for (const [cls, [f, n]] of [...main.byClass, ...[...held.byClass].map(([k, v]) => [`held-out ${k}`, v] as const)])
      rows.push([`  ${cls}`, String(n), `${f}/${n} found`]);
    console.log(
      `poisoning lint, counting high and medium findings:\n${rows.map((r) => `  ${r[0].padEnd(44)} ${r[1].padStart(5)}  ${r[2]}`).join("\n")}${
        held.missed.length ? `\n  held-out misses: ${held.missed.join("; ")}` : ""
      }${flagged.size ? `\n  honest tools flagged: ${[...flagged].join(", ")}` : ""}`,
    );
    expect(tools).toBeGreaterThanOrEqual(200);
    expect(poisoned.length).toBeGreaterThanOrEqual(60);
    expect(main.missed).toEqual([]);
    expect(flagged.size / tools).toBeLessThanOrEqual(0.01);
    expect(flaggedTogether.size / tools).toBeLessThanOrEqual(0.01);
  }, 120_000);
});
