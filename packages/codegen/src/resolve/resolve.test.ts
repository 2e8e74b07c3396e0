import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DesignDecl } from "@toolwright/dsl";
import { fingerprintCatalogue } from "@toolwright/runtime/catalogue";
import { afterAll, describe, expect, it } from "vitest";
import { DesignError } from "../errors.js";
import { LockError } from "./lock-shape.js";
import { resolveDesign } from "./resolve.js";

const obj = (properties: object = {}, extra: object = {}) => ({ type: "object", properties, ...extra });
const tool = (name: string, extra: object = {}) => ({ kind: "tool", name, input: obj(), ...extra });
const inline = (name: string, tools: unknown[]) => ({
  kind: "toolset",
  name,
  provider: { kind: "external-mcp", server: name, suite: name },
  tools,
});
const design = (parts: { toolsets?: unknown[]; agents?: unknown[]; servers?: unknown[] }) =>
  ({ kind: "design", toolsets: parts.toolsets ?? [], agents: parts.agents ?? [], servers: parts.servers ?? [] }) as unknown as DesignDecl;

function errorOf(d: DesignDecl, designPath?: string): DesignError {
  try {
    resolveDesign(d, { file: "designs/app.ts", ...(designPath ? { designPath } : {}) });
  } catch (error) {
    if (error instanceof DesignError) return error;
    throw error;
  }
  throw new Error("expected a design error");
}

describe("design errors name the file, toolset and tool", () => {
  it.each([
    ["duplicate toolset", design({ toolsets: [inline("a", []), inline("a", [])] }), { toolset: "a" }, /duplicate toolset/],
    ["duplicate tool", design({ toolsets: [inline("a", [tool("x"), tool("x")])] }), { toolset: "a", tool: "x" }, /duplicate tool/],
    [
      "collision after sanitizing",
      design({ toolsets: [inline("a", [tool("get-sum"), tool("get_sum")])] }),
      { toolset: "a", tool: "get_sum" },
      /"getSum" collides with tool "get-sum"/,
    ],
    [
      "invalid schema",
      design({ toolsets: [inline("a", [tool("x", { input: obj({ n: { type: "strin" } }) })])] }),
      { toolset: "a", tool: "x", schema: "input", pointer: "/properties/n/type" },
      /input schema: invalid schema/,
    ],
    [
      "invalid regex",
      design({ toolsets: [inline("a", [tool("x", { input: obj({ n: { type: "string", pattern: "([a-z" } }) })])] }),
      { toolset: "a", tool: "x", schema: "input", pointer: "/properties/n" },
      /input schema: invalid schema: .*pattern/,
    ],
    [
      "unresolved $ref",
      design({ toolsets: [inline("a", [tool("x", { input: obj({ n: { $ref: "#/$defs/Missing" } }) })])] }),
      { toolset: "a", tool: "x", schema: "input", pointer: "/properties/n" },
      /unresolved \$ref "#\/\$defs\/Missing"/,
    ],
    [
      "remote $ref",
      design({ toolsets: [inline("a", [tool("x", { input: obj({ n: { $ref: "https://example.com/s.json" } }) })])] }),
      { toolset: "a", tool: "x", schema: "input", pointer: "/properties/n" },
      /only local refs/,
    ],
    [
      "non-object input",
      design({ toolsets: [inline("a", [tool("x", { input: { type: "string" } })])] }),
      { toolset: "a", tool: "x", schema: "input", pointer: "/" },
      /type "object"/,
    ],
    [
      "__proto__ key",
      design({ toolsets: [inline("a", [tool("x", { input: JSON.parse('{"type":"object","properties":{"__proto__":{}}}') })])] }),
      { toolset: "a", tool: "x", schema: "input" },
      /__proto__/,
    ],
    [
      "meta that is not JSON",
      design({ toolsets: [inline("a", [tool("x", { meta: { f: () => 1 } })])] }),
      { toolset: "a", tool: "x" },
      /meta: holds a function/,
    ],
    [
      "example mismatch",
      design({ toolsets: [inline("a", [tool("x", { input: obj({ n: { type: "number" } }), examples: [{ n: "1" }] })])] }),
      { toolset: "a", tool: "x" },
      /example 1/,
    ],
    [
      "fromMCP to an undeclared server",
      design({ toolsets: [{ kind: "toolset", name: "a", provider: { kind: "mcp", server: "ghost" }, tools: [] }] }),
      { toolset: "a" },
      /fromMCP\("ghost"\) refers to a server that is not declared/,
    ],
    [
      "subset naming an unknown tool",
      design({
        toolsets: [inline("a", [tool("x")])],
        agents: [{ kind: "agent", name: "bot", uses: [{ kind: "use", toolset: { name: "a" }, tools: ["x", "y"] }] }],
      }),
      { agent: "bot", toolset: "a", tool: "y" },
      /subset names a tool the toolset does not have/,
    ],
    [
      "agent using an undeclared toolset",
      design({ toolsets: [], agents: [{ kind: "agent", name: "bot", uses: [{ kind: "use", toolset: { name: "zzz" } }] }] }),
      { agent: "bot", toolset: "zzz" },
      /not in the design/,
    ],
  ])("%s", (_name, d, location, message) => {
    const error = errorOf(d);
    expect(error.location).toEqual({ file: "designs/app.ts", ...location });
    expect(error.message).toMatch(/^designs\/app\.ts/);
    expect(error.message).toMatch(message);
  });
});

describe("live catalogues from the lock file", () => {
  const dir = mkdtempSync(join(process.cwd(), ".tmp", "lock-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const server = {
    kind: "external-server",
    name: "mem",
    connection: { command: "node" },
    overrides: [tool("read", { description: "inline wins" })],
  };
  const d = design({
    toolsets: [{ kind: "toolset", name: "memory", provider: { kind: "mcp", server: "mem" }, tools: [] }],
    servers: [server],
  });

  it("a missing lock is a design error that says to run pull", () => {
    const error = errorOf(d, join(dir, "none.ts"));
    expect(error.location).toEqual({ file: "designs/app.ts", toolset: "memory" });
    expect(error.message).toMatch(/missing lock for server "mem" in none\.lock\.json; run `toolwright pull designs\/app\.ts`/);
  });

  it("reads pulled tools and applies inline overrides", () => {
    const lock = {
      version: 1,
      servers: {
        mem: {
          fingerprint: "sha256:abc",
          tools: [
            { name: "read", description: "pulled", inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" } },
            {
              name: "write",
              title: "Write",
              inputSchema: { type: "object", properties: { v: { type: "string" } } },
              annotations: { destructiveHint: true },
            },
          ],
        },
      },
    };
    writeFileSync(join(dir, "app.lock.json"), JSON.stringify(lock));
    const ir = resolveDesign(d, { file: "designs/app.ts", designPath: join(dir, "app.ts") });
    const ts = ir.toolsets[0]!;
    // The server fingerprint is recomputed from the entries: a hand-edited value in the lock is not trusted.
    expect(ts).toMatchObject({ source: "lock", server: "mem", fingerprint: fingerprintCatalogue(lock.servers.mem.tools).fingerprint });
    // The fixture lock has no instructions field (it predates them): not checked.
    expect(ts.instructions).toBeUndefined();
    expect(Object.keys(ts.snapshots ?? {})).toEqual(["read", "write"]);
    expect(ts.tools.map((t) => [t.name, t.description])).toEqual([
      ["read", "inline wins"],
      ["write", undefined],
    ]);
    expect(ts.tools[1]).toMatchObject({ title: "Write", annotations: { destructive: true } });
  });

  it("a corrupt lock is the lock's error (LockError naming the lock file), not the design's", () => {
    writeFileSync(join(dir, "bad.lock.json"), "{not json");
    let error: unknown;
    try {
      resolveDesign(d, { file: "designs/app.ts", designPath: join(dir, "bad.ts") });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LockError);
    expect((error as Error).message).toMatch(/^designs\/bad\.lock\.json: not valid JSON/);
  });
});

describe("per-tool names never shadow toolset-level exports", () => {
  it("a tool called find-<toolset> keeps its own names; the lookup is spelled apart", () => {
    const ir = resolveDesign(design({ toolsets: [inline("docs", [tool("find-docs"), tool("docs")])] }), { file: "d.ts" });
    expect(ir.toolsets[0]?.tools.map((t) => t.localName)).toEqual(["findDocs", "docs"]);
    expect(ir.toolsets[0]?.tools.map((t) => t.symbols.spec.name)).toEqual(["findDocsSpec", "docsSpec"]);
    expect(ir.toolsets[0]?.symbols.find.name).toBe("findDocsSpecByName");
  });
});

describe("fromMCP(mcpServer)", () => {
  it("takes the tools from the server declared in the design", () => {
    const server = { kind: "mcp-server", name: "calc", version: "1.0.0", tools: [tool("add"), tool("sub")] };
    const ir = resolveDesign(
      design({ toolsets: [{ kind: "toolset", name: "calc", provider: { kind: "mcp", server: "calc" }, tools: [] }], servers: [server] }),
      { file: "d.ts" },
    );
    expect(ir.toolsets[0]).toMatchObject({ source: "mcp-server", server: "calc" });
    expect(ir.toolsets[0]?.tools.map((t) => t.id)).toEqual(["calc.add", "calc.sub"]);
    expect(ir.mcpServers).toHaveLength(1);
    expect(ir.mcpServers[0]).toMatchObject({ kind: "mcp-server", name: "calc", version: "1.0.0", pascalName: "Calc" });
    expect(ir.mcpServers[0]?.toolset.tools.map((t) => [t.id, t.providerName])).toEqual([
      ["calc.add", "calc_add"],
      ["calc.sub", "calc_sub"],
    ]);
  });

  it("a server's tool schemas are checked even when no toolset uses it", () => {
    const server = {
      kind: "mcp-server",
      name: "srv",
      version: "1",
      tools: [tool("bad", { input: { type: "object", properties: { n: { type: "nope" } } } })],
    };
    const error = errorOf(design({ servers: [server] }));
    expect(error.location).toEqual({ file: "designs/app.ts", server: "srv", tool: "bad", schema: "input", pointer: "/properties/n/type" });
    expect(error.message).toMatch(/^designs\/app\.ts server "srv" tool "bad": input schema: invalid schema/);
  });
});

describe("resolved IR", () => {
  it("computes names once and keeps the subset", () => {
    const ir = resolveDesign(
      design({
        toolsets: [inline("web-tools", [tool("fetch-page"), tool("search")])],
        agents: [
          {
            kind: "agent",
            name: "bot",
            uses: [{ kind: "use", toolset: { name: "web-tools" }, tools: ["search"] }],
            runPolicy: { maxToolCalls: 3 },
          },
        ],
      }),
      { file: "d.ts" },
    );
    const [ts] = ir.toolsets;
    expect(ts).toMatchObject({ dirName: "web-tools", pascalName: "WebTools", camelName: "webTools" });
    expect(ts?.tools[0]).toMatchObject({
      id: "web-tools.fetch-page",
      localName: "fetchPage",
      typeName: "FetchPage",
      providerName: "web-tools_fetch-page",
    });
    expect(String(ts?.tools[0])).toBe("tool web-tools.fetch-page");
    expect(ir.agents[0]?.uses[0]?.tools.map((t) => t.name)).toEqual(["search"]);
    expect(ir.agents[0]?.runPolicy).toEqual({ maxToolCalls: 3 });
  });
});

describe("names that would change an object's contract", () => {
  it("reserved members get a trailing _ as members only; bindings keep the plain stem", () => {
    const names = ["then", "toJSON", "valueOf", "toString", "constructor", "inspect", "asymmetricMatch", "plain"];
    const ir = resolveDesign(
      design({
        toolsets: [
          inline(
            "then",
            names.map((n) => tool(n)),
          ),
        ],
      }),
      { file: "d.ts" },
    );
    const ts = ir.toolsets[0]!;
    expect(ts.memberName).toBe("then_");
    expect(ts.tools.map((t) => [t.name, t.localName, t.memberName])).toEqual([
      ["then", "then", "then_"],
      ["toJSON", "toJson", "toJson"],
      ["valueOf", "valueOf_", "valueOf_"],
      ["toString", "toString_", "toString_"],
      ["constructor", "constructor_", "constructor_"],
      ["inspect", "inspect", "inspect_"],
      ["asymmetricMatch", "asymmetricMatch", "asymmetricMatch_"],
      ["plain", "plain", "plain"],
    ]);
    expect(ts.tools[0]?.nameNote).toMatch(/`then_` because `then` would change/);
    expect(ts.tools[7]?.nameNote).toBeUndefined();
  });
});

describe("identifier clashes: designs the user wrote are refused, pulled catalogues are disambiguated", () => {
  const dir = mkdtempSync(join(process.cwd(), ".tmp", "clash-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const pulled = (names: readonly string[], file: string) => {
    const lock = { version: 1, servers: { srv: { tools: names.map((name) => ({ name, inputSchema: { type: "object" } })) } } };
    writeFileSync(join(dir, `${file}.lock.json`), JSON.stringify(lock));
    const d = design({
      toolsets: [{ kind: "toolset", name: "srv", provider: { kind: "mcp", server: "srv" }, tools: [] }],
      servers: [{ kind: "external-server", name: "srv", connection: { command: "node" }, overrides: [] }],
    });
    const ts = resolveDesign(d, { file: "d.ts", designPath: join(dir, `${file}.ts`) }).toolsets[0]!;
    return Object.fromEntries(
      ts.tools.map((t) => [t.name, { local: t.localName, type: t.typeName, member: t.memberName, provider: t.providerName }]),
    );
  };

  it("an inline toolset with a.b and a-b is a design error naming both", () => {
    const error = errorOf(design({ toolsets: [inline("s", [tool("a.b"), tool("a-b")])] }));
    expect(error.location).toEqual({ file: "designs/app.ts", toolset: "s", tool: "a-b" });
    expect(error.message).toMatch(/"aB" collides with tool "a\.b" after sanitizing; rename one/);
  });

  it("an mcpServer the user wrote is refused too", () => {
    const server = { kind: "mcp-server", name: "calc", version: "1", tools: [tool("a.b"), tool("a_b")] };
    expect(errorOf(design({ servers: [server] })).message).toMatch(/rename one/);
  });

  it("a pulled a.b / a-b / aB: the exact aB keeps its name, the others get a stable hash, in any order", () => {
    const one = pulled(["a.b", "a-b", "aB"], "one");
    const two = pulled(["aB", "a-b", "a.b"], "two");
    expect(one).toEqual(two);
    expect(one.aB).toEqual({ local: "aB", type: "AB", member: "aB", provider: "srv_aB" });
    expect(one["a.b"]?.local).toMatch(/^aB_[0-9a-f]{6}$/);
    expect(one["a-b"]?.local).toMatch(/^aB_[0-9a-f]{6}$/);
    expect(one["a.b"]?.local).not.toBe(one["a-b"]?.local);
    expect(one["a.b"]?.type).toBe(`AB${one["a.b"]?.local.slice(2)}`);
    // Provider names: "a-b" is exact (srv_a-b); "a.b" maps to srv_a_b, which nobody owns.
    expect(one["a-b"]?.provider).toBe("srv_a-b");
    expect(one["a.b"]?.provider).toBe("srv_a_b");
  });

  it("a pulled a.b and a_b: the real a_b keeps the provider name srv_a_b; a.b gets a hash", () => {
    const one = pulled(["a.b", "a_b"], "three");
    const two = pulled(["a_b", "a.b"], "four");
    expect(one).toEqual(two);
    expect(one.a_b?.provider).toBe("srv_a_b");
    expect(one["a.b"]?.provider).toMatch(/^srv_a_b_[0-9a-f]{8}$/);
  });

  it("a pulled then and then_: then keeps its stem, then_ is hashed; no member is `then`", () => {
    const names = pulled(["then_", "then"], "five");
    expect(names.then).toMatchObject({ local: "then", member: "then_" });
    expect(names.then_?.member).toMatch(/^then_[0-9a-f]{6}$/);
  });
});
