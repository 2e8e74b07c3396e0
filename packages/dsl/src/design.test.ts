import { describe, expect, expectTypeOf, it } from "vitest";
import { design, fromExternalMCP, fromMCP, tool, toolset } from "./design.js";
import { agent, use } from "./design-agent.js";
import { externalServer, mcpServer } from "./design-server.js";
import type { ToolsetDecl } from "./design-types.js";
import { toMilliseconds } from "./duration.js";
import { DslError } from "./errors.js";
import { object } from "./schema-composite.js";
import { integer, string } from "./schema-primitives.js";

const search = tool("search", {
  title: "Search",
  description: "Full-text search",
  input: object({ q: string(), limit: integer({ minimum: 1 }).optional() }),
  annotations: { readOnly: true, openWorld: false },
  tags: ["docs"],
  examples: [{ q: "mcp" }],
  requiresConfirmation: false,
  meta: { owner: "docs-team" },
});
const remove = tool("delete", { input: object({ id: string() }), annotations: { destructive: true }, requiresConfirmation: true });

describe("toolsets and providers", () => {
  it("keeps every metadata field as plain data", () => {
    const ts = toolset("docs", fromExternalMCP("docs-server", "docs"), [search, remove]);
    expect(ts.provider).toEqual({ kind: "external-mcp", server: "docs-server", suite: "docs" });
    expect(ts.tools.map((t) => t.name)).toEqual(["search", "delete"]);
    expect(ts.tools[0]).toMatchObject({
      kind: "tool",
      title: "Search",
      tags: ["docs"],
      examples: [{ q: "mcp" }],
      meta: { owner: "docs-team" },
    });
    expect(Object.isFrozen(ts)).toBe(true);
  });

  it("builder style, and a name taken from the provider when omitted", () => {
    const ts = toolset(fromExternalMCP("srv", "suite"), (t) => {
      t.description("Suite tools");
      t.tool("echo", { input: object({ message: string() }) });
    });
    expect(ts.name).toBe("suite");
    expect(ts.description).toBe("Suite tools");
    expect(toolset(fromMCP("memory")).name).toBe("memory");
  });

  it("fromMCP takes a server declaration or a name; design() adds the referenced server", () => {
    const server = mcpServer("calc", { version: "1.0.0", protocolVersion: "2025-11-25", instructions: "Adds numbers" }, (t) => {
      t.tool("add", { input: object({ a: integer(), b: integer() }), output: object({ sum: integer() }) });
    });
    expect(server).toMatchObject({ kind: "mcp-server", name: "calc", version: "1.0.0", instructions: "Adds numbers" });
    const ts = toolset("calc", fromMCP(server));
    expect(ts.provider).toMatchObject({ kind: "mcp", server: "calc" });
    const d = design({ toolsets: [ts] });
    expect(d.servers).toEqual([server]);
    expect(design({ toolsets: [ts], servers: [server] }).servers).toHaveLength(1);
  });

  it("externalServer keeps the connection for pull and inline overrides", () => {
    const ext = externalServer("everything", { command: "node", args: ["server.js", "stdio"], env: ["HOME"] }, (t) => {
      t.tool("echo", { description: "Overridden", input: object({ message: string() }) });
    });
    expect(ext.connection).toEqual({ command: "node", args: ["server.js", "stdio"], env: ["HOME"] });
    expect(ext.overrides.map((t) => t.name)).toEqual(["echo"]);
    const headers = { Authorization: "Bearer ${TOKEN}" };
    expect(externalServer("remote", { url: "http://127.0.0.1:3001/mcp", headers }).overrides).toEqual([]);
  });
});

describe("agents", () => {
  const docs = toolset("docs", fromExternalMCP("docs"), [search, remove]);

  it("use() makes a subset; durations normalize to ms; design() adds used toolsets", () => {
    const a = agent("researcher", {
      use: [use(docs, { tools: ["search"] })],
      runPolicy: { maxToolCalls: 10, maxConsecutiveFailedToolCalls: 2, timeBudget: "2m", toolTimeout: "1.5s" },
    });
    expect(a.uses[0]?.tools).toEqual(["search"]);
    expect(a.runPolicy).toEqual({ maxToolCalls: 10, maxConsecutiveFailedToolCalls: 2, timeBudget: 120_000, toolTimeout: 1500 });
    expect(design({ agents: [a] }).toolsets).toEqual([docs]);
  });

  it("a subset of an mcpServer toolset is checked against the server's tools", () => {
    const server = mcpServer("calc", { version: "1" }, [tool("add", { input: object({}) })]);
    expect(() => use(toolset(fromMCP(server)), { tools: ["sub"] })).toThrow(/unknown tool "sub" \(known: add\)/);
    // A pulled server's tools are unknown until the lock is read: the resolver checks those.
    expect(use(toolset(fromMCP("pulled")), { tools: ["anything"] }).tools).toEqual(["anything"]);
  });

  it("example payloads are typed by the input schema", () => {
    const misuse = () => {
      // @ts-expect-error q must be a string
      tool("a", { input: object({ q: string() }), examples: [{ q: 1 }] });
      toolset("t", fromExternalMCP("t"), (t) => {
        // @ts-expect-error unknown field in the example
        t.tool("b", { input: object({ q: string() }), examples: [{ q: "x", z: 1 }] });
      });
    };
    expectTypeOf(misuse).toBeFunction();
  });

  it("subset names are typed for array-style toolsets", () => {
    expectTypeOf(docs).toEqualTypeOf<ToolsetDecl<"search" | "delete">>();
    const misuse = () => {
      // @ts-expect-error "serch" is not a tool of this toolset
      use(docs, { tools: ["serch"] });
    };
    expectTypeOf(misuse).toBeFunction();
  });
});

describe("durations", () => {
  it.each([
    [250, 250],
    ["500ms", 500],
    ["30s", 30_000],
    ["2m", 120_000],
    ["1h", 3_600_000],
    ["0.5s", 500],
  ] as const)("%s is %d ms", (input, ms) => {
    expect(toMilliseconds("x", input)).toBe(ms);
  });
  it.each([["5 minutes"], [-1], [0], ["s"], [null]])("%s is rejected", (input) => {
    expect(() => toMilliseconds("runPolicy.timeBudget", input)).toThrow(/runPolicy.timeBudget: must be/);
  });
});

describe("declaration mistakes are DslErrors naming the toolset and the tool", () => {
  const ok = object({});
  const cases: [string, () => unknown, RegExp][] = [
    ["duplicate tool", () => toolset("docs", fromExternalMCP("d"), [search, search]), /toolset "docs": tool "search" is declared twice/],
    [
      "duplicate tool in builder",
      () =>
        toolset("docs", fromExternalMCP("d"), (t) => {
          t.tool("a", { input: ok });
          t.tool("a", { input: ok });
        }),
      /toolset "docs": tool "a" is declared twice/,
    ],
    [
      "typo in a definition field",
      () => toolset("docs", fromExternalMCP("d"), (t) => t.tool("a", { inputSchema: ok } as never)),
      /toolset "docs", tool "a": unknown field "inputSchema"/,
    ],
    ["missing input", () => toolset("docs", fromExternalMCP("d"), [tool("a", {} as never)]), /toolset "docs", tool "a": input is required/],
    [
      "non-object input",
      () => toolset("docs", fromExternalMCP("d"), [tool("a", { input: string() })]),
      /toolset "docs", tool "a": input must describe an object .* got type "string"/,
    ],
    [
      "bad annotation",
      () => mcpServer("s", { version: "1" }, [tool("a", { input: ok, annotations: { readonly: true } as never })]),
      /mcpServer "s", tool "a": unknown annotation "readonly"/,
    ],
    [
      "annotation not boolean",
      () => toolset("docs", fromExternalMCP("d"), [tool("a", { input: ok, annotations: { readOnly: "yes" } as never })]),
      /toolset "docs", tool "a": annotation readOnly must be a boolean/,
    ],
    [
      "example not an object",
      () => toolset("docs", fromExternalMCP("d"), [tool("a", { input: ok, examples: ["q"] })]),
      /toolset "docs", tool "a": example 1 must be an object payload/,
    ],
    ["empty tool name", () => tool("", { input: ok }), /tool\(\): the tool name must be a non-empty string/],
    ["no provider", () => toolset("x", "docs" as never), /toolset\(\): expects a provider from fromMCP/],
    ["bad server version", () => mcpServer("s", { version: "" }), /mcpServer\("s"\): version must be a non-empty string/],
    [
      "bad protocol version",
      () => mcpServer("s", { version: "1", protocolVersion: "2099-01-01" as never }),
      /protocolVersion "2099-01-01" is not supported/,
    ],
    ["command and url", () => externalServer("e", { command: "x", url: "http://a" } as never), /give either command .* or url/],
    ["bad url", () => externalServer("e", { url: "not a url" }), /url "not a url" is not a valid URL/],
    [
      "bad outbound flag",
      () => externalServer("e", { url: "https://a.example", outbound: { allowLoopback: "no" } } as never),
      /outbound.allowLoopback must be a boolean/,
    ],
    [
      "unknown outbound field",
      () => externalServer("e", { url: "https://a.example", outbound: { allowAll: true } } as never),
      /outbound.allowAll is not a known field/,
    ],
    [
      "unknown subset tool",
      () => use(toolset("docs", fromExternalMCP("d"), [search]), { tools: ["serch" as "search"] }),
      /use\(toolset "docs"\): unknown tool "serch" \(known: search\)/,
    ],
    ["empty subset", () => use(toolset("docs", fromExternalMCP("d"), [search]), { tools: [] }), /tools must be a non-empty array/],
    [
      "toolset used twice",
      () => agent("a", { use: [toolset("d", fromExternalMCP("d")), toolset("d", fromExternalMCP("d"))] }),
      /agent "a": toolset "d" is used twice/,
    ],
    [
      "bad policy",
      () => agent("a", { use: [], runPolicy: { maxToolCalls: 0 } }),
      /agent "a": runPolicy.maxToolCalls must be a positive integer/,
    ],
    [
      "bad duration",
      () => agent("a", { use: [], runPolicy: { toolTimeout: "soon" as never } }),
      /agent "a": runPolicy.toolTimeout: must be a positive duration/,
    ],
    ["unknown policy", () => agent("a", { use: [], runPolicy: { maxCalls: 3 } as never }), /unknown runPolicy option "maxCalls"/],
    [
      "server in toolsets",
      () => design({ toolsets: [mcpServer("s", { version: "1" })] as never }),
      /design\(\): toolsets\[0\] must be a toolset declaration \(this is a mcp-server declaration\)/,
    ],
    ["unknown design field", () => design({ tools: [] } as never), /design\(\): unknown field "tools"/],
  ];
  it.each(cases)("%s", (_label, run, message) => {
    let error: unknown;
    try {
      run();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DslError);
    expect((error as Error).message).toMatch(message);
  });
});

describe("a DslError carries the declaration it was made in", () => {
  const errorOf = (run: () => unknown): DslError => {
    try {
      run();
    } catch (e) {
      if (e instanceof DslError) return e;
      throw e;
    }
    throw new Error("expected a DslError");
  };
  it.each([
    ["t.tool()", () => toolset("docs", fromExternalMCP("d"), (t) => t.tool("a", { nope: 1 } as never)), { toolset: "docs", tool: "a" }],
    ["standalone tool()", () => toolset("docs", fromExternalMCP("d"), [tool("a", {} as never)]), { toolset: "docs", tool: "a" }],
    ["server tool", () => mcpServer("s", { version: "1" }, [tool("a", {} as never)]), { server: "s", tool: "a" }],
    ["server info", () => mcpServer("s", { version: "" }), { server: "s" }],
    ["override", () => externalServer("e", { command: "x" }, [tool("a", {} as never)]), { server: "e", tool: "a" }],
    ["agent", () => agent("a", { use: [], runPolicy: { maxToolCalls: 0 } }), { agent: "a" }],
  ])("%s", (_label, run, location) => {
    const error = errorOf(run);
    expect(error.location).toEqual(location);
    expect(error.message).toBe(`${error.where}: ${error.detail}`);
  });
});
