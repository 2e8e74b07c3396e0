/**
 * Round trip of `toolwright add --inline` on real servers (server-memory, server-everything,
 * server-filesystem): design A reads their catalogues from a pulled lock; design B has them written
 * as DSL builder code by `add --inline` (memory from B's lock, the others from the live servers).
 * Both generate the same types, clients, request builders and caller factories byte for byte, the
 * same specs (schemas and examples compared as JSON: key order and `required` order carry no meaning),
 * and validators that accept and reject the same payloads.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../packages/codegen/src/cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const bin = (pkg: string) => join(repo, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");
const SERVERS = ["memory", "everything", "filesystem"] as const;
let dir = "";

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir });
  if (code !== 0) throw new Error(`toolwright ${argv.join(" ")} exited ${code}: ${err.join("\n")}`);
  return out.join("\n");
}

const body = (path: string) => readFileSync(join(dir, path), "utf8").split("\n").slice(2).join("\n");

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  const out: { [key: string]: unknown } = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as { [key: string]: unknown })[key];
    out[key] = key === "required" && Array.isArray(v) ? [...v].sort() : canonical(v);
  }
  return out;
}

interface Spec {
  readonly id: string;
  readonly name: string;
  readonly providerName: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
  readonly exampleJson?: string;
  decodePayload(v: unknown): { ok: boolean; issues?: readonly unknown[] };
  decodeResult?(v: unknown): { ok: boolean; issues?: readonly unknown[] };
}

async function specs(out: string, toolset: string): Promise<readonly Spec[]> {
  const mod = (await import(pathToFileURL(join(dir, out, toolset, "specs.gen.ts")).href)) as { [name: string]: unknown };
  const list = Object.entries(mod).find(([k]) => k.endsWith("Specs"))?.[1];
  return list as readonly Spec[];
}

const outcome = (r: { ok: boolean; issues?: readonly unknown[] }) => ({
  ok: r.ok,
  issues: (r.issues ?? []).map((i) => JSON.stringify(canonical(i))).sort(),
});

beforeAll(async () => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "add-inline-"));
  mkdirSync(join(dir, ".toolwright"));
  mkdirSync(join(dir, "files"));
  const config = {
    mcpServers: {
      memory: { command: process.execPath, args: [bin("server-memory")], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
      everything: { command: process.execPath, args: [bin("server-everything"), "stdio"] },
      filesystem: { command: process.execPath, args: [bin("server-filesystem"), join(dir, "files")] },
    },
  };
  writeFileSync(join(dir, ".toolwright", "mcp.json"), JSON.stringify(config, null, 2));
  // A: the lock path.
  await cli("init", "--design", "a.ts");
  await cli("pull", "a.ts");
  await cli("gen", "a.ts", "--out", "gen-a");
  // B: the inline path; memory's catalogue comes from B's own lock, the others from the live servers.
  const lock = JSON.parse(readFileSync(join(dir, "a.lock.json"), "utf8"));
  writeFileSync(join(dir, "b.lock.json"), JSON.stringify({ version: 1, servers: { memory: lock.servers.memory } }));
  writeFileSync(join(dir, "b.ts"), 'import { design } from "@toolwright/dsl";\n\nexport default design({ toolsets: [] });\n');
  for (const s of SERVERS) await cli("add", s, "--inline", "--design", "b.ts");
  await cli("gen", "b.ts", "--out", "gen-b");
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("add --inline generates what the pulled lock generates", () => {
  it("the inlined design is builder code, not raw JSON Schema", () => {
    const b = readFileSync(join(dir, "b.ts"), "utf8");
    expect(b).toContain('t.tool("create_entities", {');
    expect(b).toMatch(/input: object\(\{\n\s+entities: array\(object\(\{/);
    expect(b).not.toContain("raw(");
  });

  it.each(SERVERS)("%s: types, client, requests and caller are byte-identical", (s) => {
    for (const file of ["types.gen.ts", "client.gen.ts", "requests.gen.ts", "caller.gen.ts"]) {
      expect(body(`gen-b/${s}/${file}`), `${s}/${file}`).toBe(body(`gen-a/${s}/${file}`));
    }
  });

  it.each(SERVERS)("%s: the same specs and validators that decide alike", async (s) => {
    const a = await specs("gen-a", s);
    const b = await specs("gen-b", s);
    expect(b.map((x) => x.id)).toEqual(a.map((x) => x.id));
    expect(a.length).toBeGreaterThan(0);
    for (const [i, sa] of a.entries()) {
      const sb = b[i]!;
      for (const key of ["name", "providerName", "title", "description", "annotations"] as const) {
        expect(sb[key], `${sa.id} ${key}`).toEqual(sa[key]);
      }
      // The synthesized example follows `required`, whose order the DSL takes from the fields: same payload, keys maybe reordered.
      const example = (x: Spec) => (x.exampleJson === undefined ? undefined : canonical(JSON.parse(x.exampleJson)));
      expect(example(sb), `${sa.id} example`).toEqual(example(sa));
      expect(canonical(sb.inputSchema), `${sa.id} input`).toEqual(canonical(sa.inputSchema));
      expect(canonical(sb.outputSchema), `${sa.id} output`).toEqual(canonical(sa.outputSchema));
      const payloads: unknown[] = [{}, { unexpected: 1 }, sa.exampleJson === undefined ? null : JSON.parse(sa.exampleJson)];
      for (const p of payloads)
        expect(outcome(sb.decodePayload(p)), `${sa.id} payload ${JSON.stringify(p)}`).toEqual(outcome(sa.decodePayload(p)));
      if (sa.decodeResult) expect(outcome(sb.decodeResult!({})), `${sa.id} result`).toEqual(outcome(sa.decodeResult({})));
    }
  });
});
