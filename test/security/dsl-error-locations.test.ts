/**
 * Every kind of DSL mistake, made inside a real design file and run through `toolwright gen`
 * (`main`, in-process, with `--json`), is reported with the design file, the toolset (or server)
 * and tool, and the field's JSON pointer (in the message and as location.schema/pointer), as the
 * raw JSON Schema form of a mistake is, instead of failing the whole load with a message that says
 * only which builder went wrong.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../packages/codegen/src/cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
let dir: string;
let n = 0;

interface Failure {
  readonly code: number;
  readonly json: { readonly location?: { readonly [k: string]: string }; readonly problem?: string; readonly error?: string };
}

async function gen(source: string): Promise<Failure> {
  const file = join(dir, `case-${++n}.design.ts`);
  writeFileSync(file, source);
  const out: string[] = [];
  const code = await main(["gen", relative(repo, file), "--out", relative(repo, join(dir, `out-${n}`)), "--json", "--no-cache"], {
    stdout: (t) => out.push(t),
    stderr: (t) => out.push(t),
    cwd: repo,
  });
  return { code, json: JSON.parse(out.join("")) };
}

const IMPORTS = `import { array, design, enumOf, externalServer, fromExternalMCP, fromMCP, integer, literal, mcpServer, named, nullable, number, object, oneOf, raw, record, string, tool, toolset, union } from "@toolwright/dsl";\n`;

/** A design whose tool "buy" of toolset "shop" has `snippet` at /properties/order/properties/field. */
const inField = (snippet: string) =>
  `${IMPORTS}export default design({ toolsets: [toolset("shop", fromExternalMCP("shop"), (t) => t.tool("buy", { input: object({ order: object({ field: ${snippet} }) }) }))] });\n`;

const AT = "/properties/order/properties/field";

beforeAll(() => {
  const build = spawnSync(join(repo, "node_modules", ".bin", "tsc"), ["-b", "packages/dsl", "packages/runtime"], {
    cwd: repo,
    encoding: "utf8",
  });
  expect(build.status, build.stdout).toBe(0);
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "dsl-locations-"));
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("schema builder mistakes name the file, toolset, tool and JSON pointer", () => {
  const cases: [string, string, RegExp][] = [
    ["bad regex", `string({ pattern: "(?<" })`, /^string\(\) at \S+: pattern "\(\?<" is not a valid regular expression/],
    ["min > max length", `string({ minLength: 5, maxLength: 2 })`, /^string\(\) at \S+: minLength \(5\) is greater than maxLength \(2\)/],
    ["negative length", `string({ minLength: -1 })`, /^string\(\) at \S+: minLength must be a non-negative integer/],
    ["unknown option", `string({ minimum: 1 } as never)`, /^string\(\) at \S+: unknown option "minimum"/],
    ["empty format", `string({ format: "" })`, /^string\(\) at \S+: format must be a non-empty string/],
    ["empty enum", `string({ enum: [] as never })`, /^string\(\) at \S+: enum must be a non-empty array/],
    ["impossible range", `integer({ minimum: 5, maximum: 1 })`, /^integer\(\) at \S+: no integer satisfies the bounds/],
    ["exclusive equal", `number({ exclusiveMinimum: 1, maximum: 1 })`, /^number\(\) at \S+: no number satisfies/],
    ["multipleOf 0", `number({ multipleOf: 0 })`, /^number\(\) at \S+: multipleOf must be greater than 0/],
    ["NaN bound", `number({ minimum: Number.NaN })`, /^number\(\) at \S+: minimum must be a finite number/],
    ["array items not a schema", `array("string" as never)`, /^array\(\) at \S+: items must be a schema builder/],
    ["array bounds", `array(string(), { minItems: 3, maxItems: 1 })`, /^array\(\) at \S+: minItems \(3\) is greater than maxItems \(1\)/],
    [
      "uncalled builder",
      `object({ a: string as never })`,
      /^object\(\) at \S+: field "a" must be a schema builder.*did you forget to call it/,
    ],
    ["object of a schema", `object(string() as never)`, /^object\(\) at \S+: expects a shape/],
    ["closed not boolean", `object({}, { closed: "no" as never })`, /^object\(\) at \S+: closed must be a boolean/],
    ["record values", `record(42 as never)`, /^record\(\) at \S+: values must be a schema builder/],
    ["empty union", `(union as (...a: unknown[]) => never)()`, /^union\(\) at \S+: expects at least one member/],
    ["union member", `union(string(), 3 as never)`, /^union\(\) at \S+: member 2 must be a schema builder/],
    ["oneOf member", `oneOf(string(), null as never)`, /^oneOf\(\) at \S+: member 2 must be a schema builder/],
    ["nullable of nothing", `nullable(undefined as never)`, /^nullable\(\) at \S+: the argument must be a schema builder/],
    ["duplicate enum", `enumOf(["a", "a"])`, /^enumOf\(\) at \S+: has duplicate values/],
    ["literal object", `literal({} as never)`, /^literal\(\) at \S+: values must be strings/],
    ["bad name", `named("a/b", string())`, /^named\("a\/b"\) at \S+: the name must start/],
    ["self as body", `named("S", (self) => self)`, /^named\("S"\) at \S+: the build function returned `self`/],
    ["optional named", `named("O", string().optional())`, /^named\("O"\) at \S+: a named type cannot be optional/],
    ["raw not object", `raw("x" as never)`, /^raw\(\) at \S+: expects a JSON Schema object/],
    ["raw with function", `raw({ f: () => 1 } as never)`, /^raw\(\) at \S+: the schema must be plain JSON data; found a function/],
    ["describe not a string", `string().describe(42 as never)`, /^describe\(\) at \S+: the description must be a string/],
    ["title not a string", `string().title({} as never)`, /^title\(\) at \S+: the title must be a string/],
    ["default not JSON", `number().default(Number.POSITIVE_INFINITY)`, /^default\(\) at \S+: the default must be plain JSON data/],
    ["examples not JSON", `number().examples((() => 1) as never)`, /^examples\(\) at \S+: every example must be plain JSON data/],
    ["with not JSON", `string().with({ x: () => 1 } as never)`, /^with\(\) at \S+: extra keywords must be plain JSON data/],
    ["mistake then optional", `string({ pattern: "[" }).optional().nullable()`, /^string\(\) at \S+: pattern "\[" is not a valid/],
  ];

  it.each(cases)(
    "%s",
    async (_label, snippet, message) => {
      const { code, json } = await gen(inField(snippet));
      expect(code).toBe(2);
      expect(json.location).toMatchObject({ toolset: "shop", tool: "buy", schema: "input", pointer: AT });
      expect(json.location?.file).toMatch(/case-\d+\.design\.ts$/);
      const problem = json.problem ?? "";
      expect(problem.startsWith("input schema: "), problem).toBe(true);
      const detail = problem.slice("input schema: ".length);
      expect(detail).toMatch(message);
      expect(detail).toContain(` at ${AT}: `);
      expect(json.error).toMatch(/^design error: \S+case-\d+\.design\.ts toolset "shop" tool "buy": input schema: /);
    },
    60_000,
  );

  it("the raw JSON Schema form of the same mistake names the same tool and pointer", async () => {
    const { json } = await gen(inField(`raw({ type: "string", pattern: "(?<" })`));
    expect(json.location).toMatchObject({ toolset: "shop", tool: "buy", schema: "input", pointer: AT });
    expect(json.problem).toMatch(new RegExp(`pattern "\\(\\?<" at ${AT.replace(/\//g, "\\/")} is not a valid regular expression`));
  });

  it("inside a named type, the pointer is under $defs; in an output schema, it says output", async () => {
    const named = await gen(
      `${IMPORTS}const Address = named("Address", object({ zip: string({ pattern: "(?<" }) }));\nexport default design({ toolsets: [toolset("shop", fromExternalMCP("shop"), (t) => t.tool("ship", { input: object({ to: Address }) }))] });\n`,
    );
    expect(named.json.location).toMatchObject({ toolset: "shop", tool: "ship", pointer: "/$defs/Address/properties/zip" });
    expect(named.json.problem).toMatch(/^input schema: string\(\) at \/\$defs\/Address\/properties\/zip: pattern/);
    const output = await gen(
      `${IMPORTS}export default design({ toolsets: [toolset("shop", fromExternalMCP("shop"), (t) => t.tool("quote", { input: object({}), output: object({ price: number({ minimum: 2, maximum: 1 }) }) }))] });\n`,
    );
    expect(output.json.location).toMatchObject({ toolset: "shop", tool: "quote", schema: "output", pointer: "/properties/price" });
    expect(output.json.problem).toMatch(/^output schema: number\(\) at \/properties\/price: no number satisfies the bounds/);
  });

  it("in a server the design implements, the server and the tool are named", async () => {
    const { json } = await gen(
      `${IMPORTS}const calc = mcpServer("calc", { version: "1.0.0" }, (t) => t.tool("add", { input: object({ a: integer({ multipleOf: -1 }) }) }));\nexport default design({ servers: [calc] });\n`,
    );
    expect(json.location).toMatchObject({ server: "calc", tool: "add", schema: "input", pointer: "/properties/a" });
    expect(json.problem).toMatch(/^input schema: integer\(\) at \/properties\/a: multipleOf must be greater than 0/);
  });
});

describe("declaration mistakes name the toolset and tool (or server, or agent), wherever the tool was declared", () => {
  const cases: [string, string, { readonly [k: string]: string }, RegExp][] = [
    [
      "standalone tool() listed in a toolset",
      `export default design({ toolsets: [toolset("shop", fromExternalMCP("shop"), [tool("buy", { inputSchema: object({}) } as never)])] });`,
      { toolset: "shop", tool: "buy" },
      /toolset "shop" tool "buy": unknown field "inputSchema"/,
    ],
    [
      "standalone tool() in an mcpServer",
      `export default design({ servers: [mcpServer("calc", { version: "1" }, [tool("add", { input: string() })])] });`,
      { server: "calc", tool: "add" },
      /server "calc" tool "add": input must describe an object/,
    ],
    [
      "standalone tool() overriding a pulled tool",
      `const s = externalServer("s", { command: "node" }, [tool("read", { input: object({}), annotations: { readOnly: "yes" } as never })]);\nexport default design({ toolsets: [toolset("s", fromMCP(s))] });`,
      { server: "s", tool: "read" },
      /server "s" tool "read": annotation readOnly must be a boolean/,
    ],
    [
      "builder t.tool()",
      `export default design({ toolsets: [toolset("shop", fromExternalMCP("shop"), (t) => t.tool("buy", { input: object({}), examples: ["q"] } as never))] });`,
      { toolset: "shop", tool: "buy" },
      /toolset "shop" tool "buy": example 1 must be an object payload/,
    ],
    [
      "a tool declared twice",
      `export default design({ toolsets: [toolset("shop", fromExternalMCP("shop"), (t) => { t.tool("buy", { input: object({}) }); t.tool("buy", { input: object({}) }); })] });`,
      { toolset: "shop", tool: "buy" },
      /toolset "shop" tool "buy": tool "buy" is declared twice/,
    ],
    [
      "a server's info",
      `export default design({ servers: [mcpServer("calc", { version: "" })] });`,
      { server: "calc" },
      /server "calc": mcpServer\("calc"\): version must be a non-empty string/,
    ],
    [
      "an agent's run policy",
      `export default design({ agents: [agent("bot", { use: [], runPolicy: { toolTimeout: "soon" } as never })] });`,
      { agent: "bot" },
      /agent "bot": runPolicy\.toolTimeout: must be a positive duration/,
    ],
  ];
  it.each(cases)(
    "%s",
    async (_label, body, location, message) => {
      const { code, json } = await gen(`${IMPORTS.replace("array,", "agent, array,")}${body}\n`);
      expect(code).toBe(2);
      expect(json.location?.file).toMatch(/case-\d+\.design\.ts$/);
      expect(json.location).toMatchObject(location);
      expect(json.error).toMatch(message);
    },
    60_000,
  );
});
