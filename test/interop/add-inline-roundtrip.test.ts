/**
 * Round trip of `toolwright add --inline` on real servers (server-memory, server-everything,
 * server-filesystem): design A reads their catalogues from a pulled lock; design B has them written
 * as DSL builder code by `add --inline` (memory from B's lock, the others from the live servers).
 * Design C is a pulled design whose toolset `add --inline --force` turned into builder code. Every
 * file A generates, B and C generate too, with the same exports; every file is byte-identical but
 * for specs and validators, whose schemas may list keys in another order: those are compared as
 * JSON (key order and `required` order carry no meaning), the drift catalogue exactly, and their
 * validators must accept and reject the same payloads. The code-mode API prints each tool's example
 * payload in its JSDoc, in that same schema key order: it is compared with every `@example` payload
 * read back as JSON.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
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

/** Every file under `out`, relative, sorted. */
function generated(out: string): string[] {
  const root = join(dir, out);
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [relative(root, join(d, e.name))]));
  return walk(root).sort();
}

/** The names a generated file exports (values and types), read from its text. */
function exportsOf(path: string): string[] {
  const text = readFileSync(join(dir, path), "utf8");
  const names = [
    ...text.matchAll(/^export (?:declare )?(?:const|function|async function|class|type|interface|enum) ([A-Za-z_$][\w$]*)/gm),
  ].map((m) => m[1]!);
  for (const m of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm))
    names.push(
      ...m[1]!
        .split(",")
        .map(
          (n) =>
            n
              .trim()
              .split(/\s+as\s+/)
              .pop()!,
        )
        .filter(Boolean),
    );
  return names.sort();
}

const loadModule = async (path: string) => (await import(pathToFileURL(join(dir, path)).href)) as { [name: string]: unknown };

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
  // C: a pulled toolset turned into builder code with --force (the import only the old toolset used must go).
  writeFileSync(join(dir, "c.lock.json"), JSON.stringify({ version: 1, servers: { memory: lock.servers.memory } }));
  writeFileSync(
    join(dir, "c.ts"),
    'import { design, externalServer, fromMCP, mcpJson, toolset } from "@toolwright/dsl";\n\nconst memory = externalServer("memory", mcpJson());\n\nexport default design({ toolsets: [toolset("memory", fromMCP(memory))] });\n',
  );
  await cli("add", "memory", "--inline", "--force", "--design", "c.ts");
  await cli("gen", "c.ts", "--out", "gen-c");
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("add --inline generates what the pulled lock generates", () => {
  it("the inlined design is builder code, not raw JSON Schema", () => {
    const b = readFileSync(join(dir, "b.ts"), "utf8");
    expect(b).toContain('t.tool("create_entities", {');
    expect(b).toMatch(/input: object\(\{\n\s+entities: array\(object\(\{/);
    expect(b).not.toContain("raw(");
  });

  it("add --inline --force on a pulled toolset keeps it MCP-backed and leaves no unused import", () => {
    const c = readFileSync(join(dir, "c.ts"), "utf8");
    expect(c).toContain('toolset("memory", fromMCP(memory), (t) => {');
    const [, imported = "", rest = ""] = /^import \{([^}]*)\} from "@toolwright\/dsl";([\s\S]*)$/.exec(c) ?? [];
    const names = imported.split(",").map((n) => n.trim());
    expect(names.length).toBeGreaterThan(3);
    for (const n of names) expect(rest, `import ${n} is used`).toMatch(new RegExp(`\\b${n}\\(`));
  });

  // Each inlined output next to the pulled one: B (inlined from scratch) for every server, C (pulled, then inlined) for memory.
  const PAIRS = [...SERVERS.map((s) => ["gen-b", s] as const), ["gen-c", "memory"] as const];

  it.each(PAIRS)("%s/%s: the same files, with the same exports, as the pulled design", (out, s) => {
    const files = generated(`gen-a/${s}`);
    expect(files).toContain("specs.gen.ts");
    expect(generated(`${out}/${s}`)).toEqual(files);
    for (const file of files) expect(exportsOf(`${out}/${s}/${file}`), file).toEqual(exportsOf(`gen-a/${s}/${file}`));
    // The drift check and catalogue user code calls.
    expect(exportsOf(`${out}/${s}/register.gen.ts`).some((n) => /^check.*Drift$/.test(n))).toBe(true);
    expect(exportsOf(`${out}/${s}/specs.gen.ts`)).toContain(`${s}Catalogue`);
  });

  it.each(PAIRS)("%s/%s: every file but specs and validators is byte-identical", (out, s) => {
    const files = generated(`gen-a/${s}`).filter((f) => f !== "specs.gen.ts" && f !== "validators.gen.ts");
    expect(files.length).toBeGreaterThanOrEqual(6);
    // Example payloads (JSON in `@example` lines) as sorted JSON: their key order carries no meaning.
    const sortedExamples = (text: string) =>
      text.replace(/(@example await [\w.$]+\()(\{.*?\})(\))/g, (_m, head: string, json: string, tail: string) => {
        const sort = (v: unknown): unknown =>
          Array.isArray(v)
            ? v.map(sort)
            : v !== null && typeof v === "object"
              ? Object.fromEntries(
                  Object.entries(v)
                    .sort(([a], [b]) => (a < b ? -1 : 1))
                    .map(([k, x]) => [k, sort(x)]),
                )
              : v;
        let parsed: unknown;
        try {
          parsed = JSON.parse(json.replace(/\\"/g, '"'));
        } catch {
          return `${head}${json}${tail}`; // compared as written
        }
        return `${head}${JSON.stringify(sort(parsed))}${tail}`;
      });
    for (const file of files) {
      const [a, b] = [body(`gen-a/${s}/${file}`), body(`${out}/${s}/${file}`)];
      if (file === "code-mode.gen.ts") expect(sortedExamples(b), `${s}/${file}`).toBe(sortedExamples(a));
      else expect(b, `${s}/${file}`).toBe(a);
    }
  });

  it.each(PAIRS)("%s/%s: the same drift catalogue, and validators that decide alike", async (out, s) => {
    const specsA = await loadModule(`gen-a/${s}/specs.gen.ts`);
    const specsB = await loadModule(`${out}/${s}/specs.gen.ts`);
    expect(specsB[`${s}Catalogue`]).toEqual(specsA[`${s}Catalogue`]);
    const a = await loadModule(`gen-a/${s}/validators.gen.ts`);
    const b = await loadModule(`${out}/${s}/validators.gen.ts`);
    const examples = (await specs("gen-a", s)).flatMap((x) => (x.exampleJson === undefined ? [] : [JSON.parse(x.exampleJson)]));
    type Validate = ((v: unknown) => boolean) & { errors?: unknown };
    for (const [name, fa] of Object.entries(a)) {
      const fb = b[name] as Validate;
      expect(typeof fb, name).toBe("function");
      for (const p of [{}, { unexpected: 1 }, null, "text", ...examples]) {
        expect((fb as Validate)(p), `${name} ${JSON.stringify(p)}`).toBe((fa as Validate)(p));
      }
    }
  });

  it.each(PAIRS)("%s/%s: the same specs and validators that decide alike", async (out, s) => {
    const a = await specs("gen-a", s);
    const b = await specs(out, s);
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
