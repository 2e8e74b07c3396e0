/**
 * The code-mode type check (issue 27, item 2) against real generated APIs: `gen` runs on
 * examples/catalogues (the locks of the real server-everything, -filesystem and -memory), and the
 * model's programs are checked against the `code-mode.gen.ts` modules it printed. Wrong enum values,
 * wrong field types, unknown tools and wrong result fields are caught, with the line and column in
 * the model's own text, as a `correct_call` ToolFailure; good programs come back as JavaScript.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CheckFailure, type CheckResult, type CodeModeApi, createTypeChecker, type TypeChecker } from "@toolwright/code-mode";
import { validateFailure } from "@toolwright/runtime/caller";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFrom, REPO } from "../golden/generate-case.js";

const dir = join(REPO, ".tmp", `code-mode-check-${process.pid}`);
let apis: { everything: CodeModeApi; filesystem: CodeModeApi; memory: CodeModeApi };
let checker: TypeChecker;

beforeAll(async () => {
  const files = await generateFrom(join(REPO, "examples", "catalogues", "design.ts"));
  mkdirSync(dir, { recursive: true });
  const load = async (toolset: string): Promise<CodeModeApi> => {
    const text = files.get(`${toolset}/code-mode.gen.ts`);
    if (text === undefined) throw new Error(`gen printed no ${toolset}/code-mode.gen.ts`);
    const path = join(dir, `${toolset}.code-mode.gen.ts`);
    writeFileSync(path, text);
    const mod = (await import(path)) as { [name: string]: CodeModeApi };
    return Object.values(mod)[0]!;
  };
  apis = { everything: await load("everything"), filesystem: await load("filesystem"), memory: await load("memory") };
  checker = createTypeChecker([apis.everything, apis.filesystem, apis.memory]);
});
afterAll(() => {
  checker?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function failed(result: CheckResult): CheckFailure {
  if (result.ok) throw new Error(`expected the check to fail; it passed with:\n${result.js}`);
  return result.failure;
}

/** The 1-based line and column of the first `needle` in `source`. */
function positionOf(source: string, needle: string): { line: number; column: number } {
  const at = source.indexOf(needle);
  if (at < 0) throw new Error(`${needle} not in the program`);
  const before = source.slice(0, at).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

describe("real generated APIs", () => {
  it("the declarations of all three servers compile together, with no diagnostic", () => {
    expect(checker.declarationDiagnostics()).toEqual([]);
    expect(apis.memory.namespace).toBe("memory");
    expect(apis.filesystem.index.length).toBeGreaterThan(10);
  });

  it("a correct multi-server program passes and comes back as JavaScript with its types erased", () => {
    const source = [
      "interface Row { name: string; size: number }",
      'const listing = await filesystem.listDirectoryWithSizes({ path: ".", sortBy: "size" });',
      "const graph = await memory.readGraph();",
      "const names: string[] = graph.entities.map((e) => e.name);",
      'const weather = await everything.getStructuredContent({ location: "Chicago" });',
      "try {",
      '  await memory.createEntities({ entities: [{ name: "a", entityType: "t", observations: [listing.content] }] });',
      "} catch (e) {",
      '  if (e instanceof ToolError && e.recovery.action === "correct_call") console.log(e.kind, e.issues[0]?.field);',
      "}",
      "const rows: Row[] = [];",
      "return { names, celsius: weather.temperature, rows };",
    ].join("\n");
    const result = checker.check(source);
    if (!result.ok) throw new Error(result.failure.message);
    expect(result.js).toContain("await filesystem.listDirectoryWithSizes(");
    expect(result.js).toContain("return { names, celsius: weather.temperature, rows };");
    expect(result.js).not.toMatch(/interface Row|: string\[\]|: Row\[\]/);
  });

  it("the JavaScript runs as an async function body (the executor's contract), here against stand-in namespaces", async () => {
    const result = checker.check("const g = await memory.readGraph();\nconst n: number = g.entities.length;\nreturn n * 2;");
    if (!result.ok) throw new Error(result.failure.message);
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
      ...args: string[]
    ) => (...a: unknown[]) => Promise<unknown>;
    const memory = { readGraph: async () => ({ entities: [{ name: "x" }, { name: "y" }], relations: [] }) };
    // The emitted program calls the sandbox prelude's deadline check (`__toolwrightTick`) in its bodies.
    expect(result.js).toContain("__toolwrightTick()");
    let ticks = 0;
    expect(await new AsyncFunction("memory", "__toolwrightTick", result.js)(memory, () => ticks++)).toBe(4);
    expect(ticks).toBeGreaterThan(0);
  });
});

describe("what the check catches, where", () => {
  it("a wrong enum value, at the property", () => {
    const source = 'const w = await everything.getStructuredContent({\n  location: "Boston",\n});\nreturn w;';
    const f = failed(checker.check(source));
    expect(f.diagnostics).toEqual([
      {
        ...positionOf(source, "location"),
        code: 2322,
        message: expect.stringMatching(/"Boston".*not assignable.*"New York" \| "Chicago" \| "Los Angeles"/),
      },
    ]);
  });

  it("a wrong field type inside a nested array", () => {
    const source = 'await memory.createEntities({\n  entities: [{ name: "n", entityType: "t", observations: "not a list" }],\n});';
    const [d] = failed(checker.check(source)).diagnostics;
    expect(d).toMatchObject({ ...positionOf(source, "observations"), code: 2322 });
    expect(d!.message).toMatch(/'string' is not assignable to type 'string\[\]'/);
  });

  it("a wrong argument type (a number where a string is declared)", () => {
    const source = "const f = await filesystem.readTextFile({ path: 42 });";
    expect(failed(checker.check(source)).diagnostics[0]).toMatchObject({ ...positionOf(source, "path"), code: 2322 });
  });

  it("a missing required field", () => {
    const source = "await filesystem.readTextFile({});";
    const [d] = failed(checker.check(source)).diagnostics;
    expect(d).toMatchObject({ line: 1, code: 2345 });
    expect(d!.message).toMatch(/Property 'path' is missing/);
  });

  it("an unknown tool, and an unknown namespace", () => {
    const source = "await memory.deleteEverything({});\nawait github.createIssue({});";
    const f = failed(checker.check(source));
    expect(f.diagnostics.map((d) => [d.line, d.column, d.code])).toEqual([
      [1, positionOf(source, "deleteEverything").column, 2339],
      [2, 7, 2304],
    ]);
    expect(f.diagnostics[0]!.message).toMatch(/Property 'deleteEverything' does not exist on type 'typeof memory'/);
  });

  it("a wrong result field, and a method the result type does not have", () => {
    const source = "const g = await memory.readGraph();\nconst n = g.nodes.length;\nconst s = g.entities[0]!.name.push('x');";
    const f = failed(checker.check(source));
    expect(f.diagnostics).toEqual([
      expect.objectContaining({ ...positionOf(source, "nodes"), code: 2339 }),
      expect.objectContaining({ ...positionOf(source, "push"), code: 2339 }),
    ]);
  });

  it("a result without an output schema is unknown: it must be narrowed before use", () => {
    const f = failed(checker.check("const r = await everything.getSum({ a: 1, b: 2 });\nreturn r.toFixed(2);"));
    expect(f.diagnostics[0]).toMatchObject({ line: 2, column: 8, code: 18046 });
  });

  it("no ambient authority: process, require, fetch, timers and DOM globals are unknown names", () => {
    const source = "process.exit(1);\nrequire('fs');\nawait fetch('http://x');\nsetTimeout(() => {}, 1);\nwindow.alert(1);";
    const f = failed(checker.check(source));
    expect(f.diagnostics.map((d) => d.line)).toEqual([1, 2, 3, 4, 5]);
    for (const d of f.diagnostics) expect(d.message).toMatch(/^Cannot find name '(process|require|fetch|setTimeout|window)'\.$/);
  });

  it("import() and a stray brace that would close the program's function are refused by the checker's own rules", () => {
    const imp = failed(checker.check('const fs = await import("node:" + "fs");'));
    expect(imp.diagnostics).toEqual([{ line: 1, column: 18, code: 0, message: expect.stringMatching(/import\(\) is not available/) }]);
    const brace = failed(checker.check("return 1;\n}\nglobalThis.x = 1;\n{"));
    expect(brace.diagnostics[0]).toMatchObject({ line: 2, column: 1, code: 0 });
  });

  it("syntax errors, with CRLF line ends counted as one line", () => {
    const f = failed(checker.check("const a = 1;\r\nconst b = ;\r\nreturn a;"));
    expect(f.diagnostics[0]).toMatchObject({ line: 2, column: 11, code: 1109 });
  });

  it("an unclosed block is reported on the program's last line, never past it", () => {
    const f = failed(checker.check("if (true) {\n  console.log(1);"));
    expect(f.diagnostics[0]!.line).toBeLessThanOrEqual(2);
  });

  it("ToolError is typed: a recovery action that does not exist is an error", () => {
    const source =
      'try { await memory.readGraph(); } catch (e) {\n  if (e instanceof ToolError && e.recovery.action === "retry_later") throw e;\n}';
    expect(failed(checker.check(source)).diagnostics[0]).toMatchObject({ line: 2, code: 2367 });
  });

  it("ToolError carries the runtime's reason (typed, optional) and suggestions", () => {
    const good = [
      "try { await memory.readGraph(); } catch (e) {",
      '  if (e instanceof ToolError && e.reason === "max_tool_calls") return "budget";',
      '  if (e instanceof ToolError && e.reason === "tool_unavailable") return e.suggestions?.join(", ");',
      "  const r: string | undefined = e instanceof ToolError ? e.reason : undefined;",
      "  return r;",
      "}",
    ].join("\n");
    expect(checker.check(good)).toMatchObject({ ok: true });
    const bad = 'try { await memory.readGraph(); } catch (e) {\n  if (e instanceof ToolError && e.reason === "over_budget") throw e;\n}';
    expect(failed(checker.check(bad)).diagnostics[0]).toMatchObject({ line: 2, code: 2367 });
  });
});

describe("the failure value", () => {
  it("is a valid invalid_call / correct_call ToolFailure carrying the program and the diagnostics", () => {
    const source = 'await everything.getStructuredContent({ location: "Boston" });';
    const f = failed(checker.check(source));
    expect(validateFailure(f)).toEqual([]);
    expect(f).toMatchObject({ kind: "invalid_call", source: "local", tool: "code_mode", retryable: false });
    expect(f.recovery).toEqual({ action: "correct_call", priorInput: source });
    expect(f.message).toMatch(/^the program does not type-check; nothing ran: 1:41 Type '"Boston"'/);
    expect(JSON.parse(JSON.stringify(f))).toEqual(f);
  });

  it("names the code-mode tool it was given, and caps the diagnostics", () => {
    const c = createTypeChecker([apis.memory], { tool: "run_program", maxDiagnostics: 2 });
    try {
      const f = failed(c.check("a;\nb;\nc;\nd;"));
      expect(f.tool).toBe("run_program");
      expect(f.diagnostics).toHaveLength(2);
      expect(f.message).toMatch(/1:1 Cannot find name 'a'\.; 2:1 Cannot find name 'b'\.$/);
    } finally {
      c.dispose();
    }
  });

  it("refuses a program over the size limit without checking it", () => {
    const c = createTypeChecker([apis.memory], { maxSourceLength: 100 });
    try {
      const f = failed(c.check(`return "${"x".repeat(200)}";`));
      expect(f.diagnostics[0]!.message).toMatch(/210 characters long; the limit is 100/);
      expect(validateFailure(f)).toEqual([]);
    } finally {
      c.dispose();
    }
  });
});

describe("isolation between checks and between checkers", () => {
  it("nothing a program declares is visible to the next program", () => {
    expect(checker.check("const leaked = 1;\nreturn leaked;").ok).toBe(true);
    expect(failed(checker.check("return leaked;")).diagnostics[0]).toMatchObject({ code: 2304 });
  });

  it("two checkers with one namespace but different declarations never see each other's (the parse cache is shared)", () => {
    const small: CodeModeApi = {
      ...apis.memory,
      declarations: "declare namespace memory {\n  export function readGraph(): Promise<{ only: true }>;\n}\n",
    };
    const other = createTypeChecker([small]);
    try {
      for (let i = 0; i < 3; i++) {
        expect(checker.check("await memory.searchNodes({ query: 'x' });").ok).toBe(true);
        expect(failed(other.check("await memory.searchNodes({ query: 'x' });")).diagnostics[0]).toMatchObject({ code: 2339 });
        expect(other.check("const g = await memory.readGraph();\nconst o: true = g.only;").ok).toBe(true);
      }
    } finally {
      other.dispose();
    }
  });

  it("refuses APIs that cannot be loaded together, naming the toolset and the field", () => {
    expect(() => createTypeChecker([apis.memory, apis.memory])).toThrow(
      /toolset "memory".*namespace "memory" is already used by toolset "memory"/,
    );
    expect(() => createTypeChecker([apis.memory, { ...apis.filesystem, prelude: "declare class ToolError {}" }])).toThrow(
      /toolset "filesystem".*prelude differs/,
    );
    expect(() => createTypeChecker([{ ...apis.memory, namespace: "a b" }])).toThrow(/namespace must be an identifier, got "a b"/);
  });
});
