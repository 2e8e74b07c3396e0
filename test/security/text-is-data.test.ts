/**
 * Text is data (issue 25, item 1): every writer of TypeScript (the escaping helpers, `init`, `add`,
 * `add --inline`, and `gen` for toolsets, pulled catalogues, callers, server scaffolds and agents)
 * is fed arbitrary and hostile text (comment terminators, every line terminator, backticks, `${`,
 * quotes, backslashes, lone surrogates, injected calls) and must either refuse it with a clear
 * error naming where, or write TypeScript that parses, runs none of it, and holds it as data: the
 * string literals' values are exactly the input.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { agent, design, externalServer, fromExternalMCP, fromMCP, mcpServer, nameProblem, object, string, toolset } from "@toolwright/dsl";
import fc from "fast-check";
import { ts } from "ts-morph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdd } from "../../packages/codegen/src/add/add.js";
import { docName, docText, lineCommentText, printKey, printLiteral, stringLiteral } from "../../packages/codegen/src/emit/literal.js";
import { generate } from "../../packages/codegen/src/generate.js";
import { runInit, starterDesign } from "../../packages/codegen/src/init/init.js";
import { lockEntryFromListing, serializeLock } from "../../packages/codegen/src/pull/lock-format.js";
import { resolveDesign } from "../../packages/codegen/src/resolve/resolve.js";
import { allNodes, assertDataOnly, hostileName, hostileText, parseTs, stringValues } from "../support/hostile-text.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const root = join(repo, ".tmp", `text-is-data-${process.pid}`);

beforeAll(() => mkdirSync(root, { recursive: true }));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The first argument's value of every call to `callee` (`externalServer`, `t.tool`). */
function firstArgs(file: ts.SourceFile, callee: string): string[] {
  return allNodes(file)
    .filter((n): n is ts.CallExpression => ts.isCallExpression(n) && n.expression.getText(file) === callee)
    .map((c) => {
      const arg = c.arguments[0];
      if (!arg || !ts.isStringLiteral(arg)) throw new Error(`${callee}(...) without a string literal: ${c.getText(file)}`);
      return arg.text;
    });
}

/** The comments of `text` (leading and trailing, anywhere), as source ranges. */
function commentTexts(file: ts.SourceFile): string[] {
  const text = file.getFullText();
  const out = new Set<string>();
  for (const node of allNodes(file)) {
    for (const r of [
      ...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.getEnd()) ?? []),
    ])
      out.add(text.slice(r.pos, r.end));
  }
  return [...out];
}

describe("the escaping helpers (emit/literal.ts)", () => {
  it("stringLiteral: a literal whose value is the input, in either quote style, on one line", () => {
    fc.assert(
      fc.property(hostileText, fc.constantFrom<'"' | "'">('"', "'"), (text, quote) => {
        const lit = stringLiteral(text, quote);
        expect(lit).not.toMatch(/[\n\r\u2028\u2029]/);
        const file = assertDataOnly(`export const x = ${lit};\n`, "stringLiteral");
        expect(file.statements).toHaveLength(1);
        const init = (file.statements[0] as ts.VariableStatement).declarationList.declarations[0]!.initializer!;
        expect(ts.isStringLiteral(init)).toBe(true);
        expect((init as ts.StringLiteral).text).toBe(text);
        // And JavaScript reads the same value.
        expect(new Function(`return ${lit};`)()).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("printKey and printLiteral: an object literal that evaluates back to the same JSON, keys included", () => {
    const json = fc.dictionary(
      hostileText,
      fc.oneof(hostileText, fc.integer(), fc.boolean(), fc.constant(null), fc.array(hostileText, { maxLength: 3 })),
      {
        maxKeys: 5,
      },
    );
    fc.assert(
      fc.property(json, (value) => {
        const text = `export const x = ${printLiteral(value)};\n`;
        const file = assertDataOnly(text, "printLiteral");
        expect(file.statements).toHaveLength(1);
        const back = new Function(`return (${printLiteral(value)});`)() as object;
        expect(JSON.stringify(back)).toBe(JSON.stringify(value));
        for (const k of Object.keys(value)) expect(new Function(`return ({ ${printKey(k)}: 1 });`)()).toHaveProperty([k], 1);
      }),
      { numRuns: 1000 },
    );
  });

  it("docText and docName: one JSDoc comment, nothing after it but the declaration", () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        for (const body of [docText(text), docName(text)]) {
          const source = `/** ${body} */\nexport const x = 1;\n`;
          const file = assertDataOnly(source, "docText");
          expect(file.statements).toHaveLength(1);
          const ranges = ts.getLeadingCommentRanges(source, 0) ?? [];
          expect(ranges).toHaveLength(1);
          expect(ranges[0]!.end).toBe(source.indexOf("\nexport const x = 1;"));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("lineCommentText: the comment ends at the end of its line, whatever the text", () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const source = `// source: ${lineCommentText(text)}\nexport const x = 1;\n`;
        const file = assertDataOnly(source, "lineCommentText");
        expect(file.statements).toHaveLength(1);
        const ranges = ts.getLeadingCommentRanges(source, 0) ?? [];
        expect(ranges).toHaveLength(1);
        expect(ranges[0]!.end).toBe(source.indexOf("\nexport const x = 1;"));
      }),
      { numRuns: 2000 },
    );
  });
});

/** An error `init` or `add` may answer hostile input with: the name rule, or the mcp.json reader's refusal, naming the file. */
function expectClearRefusal(error: unknown, file: string): void {
  const e = error as Error;
  expect(["FileError", "McpConfigError"], e.stack).toContain(e.name);
  expect(e.message.startsWith(file), e.message).toBe(true);
  expect(e.message).not.toMatch(/cannot parse|internal|Unexpected!|Invalid index/);
}

describe("toolwright init", () => {
  it("writes hostile server names as data, or refuses them naming the mcp.json and the server", async () => {
    const dir = join(root, "init");
    mkdirSync(join(dir, ".toolwright"), { recursive: true });
    let written = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(hostileName, { minLength: 1, maxLength: 3 }), async (names) => {
        const servers = Object.fromEntries(names.map((n) => [n, { command: "node", args: ["server.js"] }]));
        writeFileSync(join(dir, ".toolwright", "mcp.json"), JSON.stringify({ mcpServers: servers }));
        try {
          await runInit({ cwd: dir, force: true, env: {} });
        } catch (error) {
          expectClearRefusal(error, ".toolwright/mcp.json");
          // Refused exactly when a name breaks the rule the design loader applies, or the reader refused.
          if ((error as Error).name === "FileError") expect(names.some((n) => nameProblem(n) !== undefined)).toBe(true);
          return;
        }
        expect(names.every((n) => nameProblem(n) === undefined)).toBe(true);
        written++;
        const file = assertDataOnly(readFileSync(join(dir, "design.ts"), "utf8"), "design.ts");
        // The file's order: Object.fromEntries (and so the written JSON) puts integer-like keys first.
        const inFile = Object.keys(servers);
        expect(firstArgs(file, "externalServer")).toEqual(inFile);
        expect(firstArgs(file, "toolset")).toEqual(inFile);
        // import, one declaration per server, the default export: nothing else.
        expect(file.statements).toHaveLength(names.length + 2);
      }),
      { numRuns: 60 },
    );
    expect(written).toBeGreaterThan(0);
  }, 300_000);

  it("writes hostile paths into the header and JSDoc as comment text only", async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, hostileText, async (designName, fromLabel) => {
        const text = await starterDesign(
          `/p/${designName.replace(/[/\\]/g, "_")}.ts`,
          "/p",
          "/p/.toolwright/mcp.json",
          ["memory"],
          fromLabel,
        );
        const file = assertDataOnly(text, "starter design");
        expect(file.statements).toHaveLength(3);
        for (const c of commentTexts(file)) expect(c.startsWith("/**") && c.endsWith("*/") && !c.slice(3, -2).includes("*/")).toBe(true);
      }),
      { numRuns: 80 },
    );
  }, 300_000);
});

describe("toolwright add", () => {
  const dir = join(root, "add");
  const base = `import { design, externalServer, fromMCP, mcpJson, toolset } from "@toolwright/dsl";

export const memory = externalServer("memory", mcpJson());

export default design({
  toolsets: [toolset("memory", fromMCP(memory))],
});
`;

  it("adds a hostile server name as data, or refuses it with the same words as init", async () => {
    mkdirSync(join(dir, ".toolwright"), { recursive: true });
    let added = 0;
    await fc.assert(
      fc.asyncProperty(hostileName, async (name) => {
        fc.pre(name !== "memory");
        writeFileSync(join(dir, "design.ts"), base);
        writeFileSync(
          join(dir, ".toolwright", "mcp.json"),
          JSON.stringify({ mcpServers: { memory: { command: "node" }, [name]: { command: "node" } } }),
        );
        try {
          await runAdd({ server: name, cwd: dir });
        } catch (error) {
          expectClearRefusal(error, ".toolwright/mcp.json");
          if ((error as Error).name === "FileError") {
            expect(nameProblem(name)).toBeDefined();
            expect((error as Error).message).toBe(
              `.toolwright/mcp.json server ${JSON.stringify(name)}: the server name ${nameProblem(name)}; rename it there (a design cannot declare it)`,
            );
          }
          return;
        }
        expect(nameProblem(name)).toBeUndefined();
        added++;
        const file = assertDataOnly(readFileSync(join(dir, "design.ts"), "utf8"), "design.ts");
        expect(firstArgs(file, "externalServer")).toEqual(["memory", name]);
        expect(firstArgs(file, "toolset")).toEqual(["memory", name]);
      }),
      { numRuns: 60 },
    );
    expect(added).toBeGreaterThan(0);
  }, 300_000);

  it("--inline writes a hostile pulled catalogue (names, titles, descriptions, schema keys and values) as data", async () => {
    mkdirSync(join(dir, ".toolwright"), { recursive: true });
    const tool = fc.record({
      name: hostileName,
      title: hostileText,
      description: hostileText,
      key: hostileName.filter((k) => k !== "__proto__"),
      fieldDescription: hostileText,
      value: hostileText,
    });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(tool, { minLength: 1, maxLength: 3, selector: (t) => t.name }), async (tools) => {
        writeFileSync(join(dir, "design.ts"), base);
        writeFileSync(
          join(dir, ".toolwright", "mcp.json"),
          JSON.stringify({ mcpServers: { memory: { command: "node" }, pulled: { command: "node" } } }),
        );
        const listed = tools.map((t) => ({
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: {
            type: "object",
            properties: { [t.key]: { type: "string", description: t.fieldDescription, enum: [t.value], default: t.value } },
          },
        }));
        writeFileSync(join(dir, "design.lock.json"), serializeLock({ pulled: lockEntryFromListing(listed) }));
        await runAdd({ server: "pulled", cwd: dir, inline: true });
        const text = readFileSync(join(dir, "design.ts"), "utf8");
        const file = assertDataOnly(text, "design.ts");
        expect(new Set(firstArgs(file, "t.tool"))).toEqual(new Set(tools.map((t) => t.name)));
        const values = new Set(stringValues(file));
        for (const t of tools) for (const v of [t.title, t.description, t.fieldDescription, t.value]) expect(values.has(v), v).toBe(true);
      }),
      { numRuns: 40 },
    );
  }, 300_000);
});

describe("toolwright gen", () => {
  const texts = fc.record({
    file: hostileText,
    toolset: hostileName,
    tool: hostileName,
    title: hostileText,
    description: hostileText,
    key: hostileName.filter((k) => k !== "__proto__"),
    fieldDescription: hostileText,
    value: hostileText,
    server: hostileName,
    command: hostileText,
    arg: hostileText,
    prompt: hostileName,
    uri: hostileText,
    agent: hostileName,
    instructions: hostileText,
  });

  type Texts = typeof texts extends fc.Arbitrary<infer R> ? R : never;

  /** A design using every text at once (the DSL refuses control characters and line separators in names: that is a clear refusal too). */
  function hostileDesign(t: Texts) {
    const input = object({ [t.key]: string().describe(t.fieldDescription).default(t.value) });
    const local = toolset(t.toolset, fromExternalMCP("inline"), (b) => {
      b.tool(t.tool, { title: t.title, description: t.description, input, output: object({ [t.key]: string() }) });
    });
    const conn = externalServer(`${t.server}-ext`, { command: `node${t.command}`, args: [t.arg, `\${HOME}${t.arg}`] });
    const pulled = toolset(`${t.toolset}-pulled`, fromMCP(conn));
    const server = mcpServer(t.server, { version: "1.0.0", title: t.title, instructions: t.instructions }, (b) => {
      b.tool(t.tool, { description: t.description, input });
      b.prompt(t.prompt, { description: t.description, arguments: [{ name: t.key, description: t.fieldDescription, required: true }] });
      b.resource(`mem://x/${t.uri}`, { name: t.prompt, description: t.description });
    });
    return design({ toolsets: [local, pulled], servers: [server], agents: [agent(t.agent, { use: [local], description: t.description })] });
  }

  it("every generated file parses, runs none of the text, and holds names as string values", async () => {
    let generated = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(texts, async (t) => {
        let d: ReturnType<typeof hostileDesign>;
        try {
          d = hostileDesign(t);
        } catch (error) {
          // The DSL refuses exactly the names the one rule refuses, and says which character.
          expect((error as Error).message).toMatch(/contains (control character|line separator) U\+[0-9A-F]{4}/);
          refused++;
          return;
        }
        const dir = join(root, "gen");
        mkdirSync(dir, { recursive: true });
        const designPath = join(dir, "design.ts");
        // The pulled toolset's catalogue, from a lock with the same hostile text (a server may send anything).
        const listed = [
          {
            name: `${t.tool}\n${t.prompt}`,
            title: t.title,
            description: t.description,
            inputSchema: { type: "object", properties: { [t.key]: { type: "string", description: t.fieldDescription, const: t.value } } },
          },
        ];
        writeFileSync(join(dir, "design.lock.json"), serializeLock({ [`${t.server}-ext`]: lockEntryFromListing(listed, t.instructions) }));
        let ir: ReturnType<typeof resolveDesign>;
        try {
          ir = resolveDesign(d, { file: t.file, designPath, cwd: dir });
        } catch (error) {
          // A clear design error naming where (names that collide after sanitizing, a schema key ajv refuses), never a crash.
          expect((error as Error).name, (error as Error).stack).toBe("DesignError");
          expect((error as Error).message).not.toMatch(/internal|TypeError|Cannot read/);
          refused++;
          return;
        }
        const files = await generate(ir);
        generated++;
        const values = new Set<string>();
        for (const [path, text] of files) {
          const file = assertDataOnly(text, path);
          for (const v of stringValues(file)) values.add(v);
          // The header's two line comments end where their lines end.
          const lines = text.split("\n");
          expect(lines[0]).toBe("// Code generated by toolwright. DO NOT EDIT.");
          expect(lines[1]!.startsWith("// source: ")).toBe(true);
          expect(lines[1]).not.toMatch(/[\r\u2028\u2029]/);
        }
        for (const v of [
          t.toolset,
          t.tool,
          t.title,
          t.description,
          t.server,
          `node${t.command}`,
          t.arg,
          t.prompt,
          t.instructions,
          `${t.tool}\n${t.prompt}`,
        ])
          expect(values.has(v), JSON.stringify(v)).toBe(true);
      }),
      { numRuns: 60 },
    );
    // Both outcomes were exercised (a third to a half of the runs generate).
    expect(generated).toBeGreaterThanOrEqual(5);
    expect(refused).toBeGreaterThan(0);
  }, 600_000);
});

describe("parseTs sees through an injection (the check can fail)", () => {
  it("flags a comment that closes early and a line comment ended by U+2028", () => {
    expect(() => assertDataOnly(`/** Server "a */ $pwn$(); /* " */\nexport const a = 1;\n`, "x")).toThrow(/became code/);
    expect(() => assertDataOnly(`// source: x\u2028$pwn$()//\nexport const a = 1;\n`, "x")).toThrow(/became code/);
    expect(parseTs("export const a = `${1}`;").diagnostics).toEqual([]);
  });
});
