import { design, externalServer, fromExternalMCP, fromMCP, mcpServer, object, toolset } from "@toolwright/dsl";
import { createInMemoryCaller } from "@toolwright/runtime";
import { callerFunc } from "@toolwright/runtime/caller";
import { getPromptVia, readResourceVia } from "@toolwright/runtime/codegen";
import { describe, expect, it } from "vitest";
import { DesignError } from "../errors.js";
import { resolveDesign } from "./resolve.js";

const at = { file: "design.ts" };

describe("prompts, resources and templates in a design", () => {
  it("resolves method names, argument lists and template variables", () => {
    const ts = toolset("notes", fromExternalMCP("notes"), (t) => {
      t.tool("search", { input: object({}) });
      t.prompt("summarize-note", { arguments: [{ name: "id", required: true }, { name: "tone" }] });
      t.resource("notes://index", { name: "index" });
      t.resourceTemplate("notes://{folder}/{+path}{?rev}", { name: "note" });
    });
    const surface = resolveDesign(design({ toolsets: [ts] }), at).toolsets[0]?.surface;
    expect(surface?.prompts.map((p) => [p.memberName, p.typeName, p.arguments.length])).toEqual([
      ["getSummarizeNotePrompt", "SummarizeNotePromptArgs", 2],
    ]);
    expect(surface?.resources.map((r) => r.memberName)).toEqual(["readIndex"]);
    expect(surface?.resourceTemplates.map((r) => [r.memberName, r.variables])).toEqual([["readNote", ["folder", "path", "rev"]]]);
  });

  it("refuses bad declarations naming the toolset and the item", () => {
    const make = (build: Parameters<typeof toolset>[2]) => () => toolset("notes", fromExternalMCP("notes"), build as never);
    expect(make((t) => t.resource("no-scheme", { name: "x" }))).toThrow(/toolset "notes".*absolute URI/);
    expect(make((t) => t.resourceTemplate("notes://plain", { name: "x" }))).toThrow(/needs \{variables\}/);
    expect(make((t) => t.prompt("p", { arguments: [{ name: "a" }, { name: "a" }] }))).toThrow(/prompt "p".*declared twice/);
    expect(
      make((t) => {
        t.prompt("p");
        t.prompt("p");
      }),
    ).toThrow(/prompt "p" is declared twice/);
    expect(() => externalServer("s", { command: "x" }, (t) => t.prompt("p"))).toThrow(/externalServer "s".*toolwright pull records/);
    expect(() => mcpServer("s", { version: "1" }, (t) => t.resource("nope", { name: "x" }))).toThrow(/mcpServer "s".*absolute URI/);
  });

  it("an mcpServer's prompts and resources reach its scaffold and the client of a toolset over it", () => {
    const server = mcpServer("notes", { version: "1" }, (t) => {
      t.tool("search", { input: object({}) });
      t.prompt("summarize", { arguments: [{ name: "id", required: true }] });
      t.resourceTemplate("notes://{id}", { name: "note" });
    });
    const client = toolset("notes-client", fromMCP(server), (t) => t.resource("notes://index", { name: "index" }));
    const ir = resolveDesign(design({ toolsets: [client] }), at);
    const scaffold = ir.mcpServers[0]?.toolset.surface;
    expect(scaffold?.prompts.map((p) => p.memberName)).toEqual(["getSummarizePrompt"]);
    expect(scaffold?.resourceTemplates.map((t) => [t.memberName, t.variables])).toEqual([["readNote", ["id"]]]);
    expect(scaffold?.resources).toEqual([]);
    // The client reads what the server serves, and the toolset's own declarations.
    const surface = ir.toolsets[0]?.surface;
    expect(surface?.prompts.map((p) => p.memberName)).toEqual(["getSummarizePrompt"]);
    expect(surface?.resources.map((r) => r.memberName)).toEqual(["readIndex"]);
    expect(surface?.resourceTemplates.map((t) => t.memberName)).toEqual(["readNote"]);
    const clash = mcpServer("clash", { version: "1" }, (t) => {
      t.tool("readIndex", { input: object({}) });
      t.resource("x://index", { name: "index" });
    });
    expect(() => resolveDesign(design({ toolsets: [], servers: [clash] }), at)).toThrow(/server "clash": resource "x:\/\/index".*clashes/);
  });

  it("a method name that clashes with a tool, or a broken template, is a design error", () => {
    const clash = toolset("notes", fromExternalMCP("notes"), (t) => {
      t.tool("readIndex", { input: object({}) });
      t.resource("notes://index", { name: "index" });
    });
    expect(() => resolveDesign(design({ toolsets: [clash] }), at)).toThrow(DesignError);
    const broken = toolset("notes", fromExternalMCP("notes"), (t) => t.resourceTemplate("notes://{a b}", { name: "x" }));
    expect(() => resolveDesign(design({ toolsets: [broken] }), at)).toThrow(/bad variable/);
  });

  it("a caller without prompts or resources gives failure values, not a throw", async () => {
    const caller = createInMemoryCaller("mem", {});
    expect(await getPromptVia(caller, "p", {})).toMatchObject({ ok: false, failure: { kind: "invalid_call", server: "mem" } });
    expect(await readResourceVia(caller, "x://y")).toMatchObject({ ok: false, failure: { kind: "invalid_call", tool: "resources/read" } });
  });

  it("a caller that offers no surface at all: the local tool_unavailable reason, no invented JSON-RPC code", async () => {
    const caller = callerFunc("fn", () => ({ ok: true, value: { content: [] } }));
    const got = await getPromptVia(caller, "p", {});
    expect(got).toMatchObject({
      ok: false,
      failure: {
        kind: "invalid_call",
        server: "fn",
        tool: "prompts/get",
        reason: "tool_unavailable",
        source: "local",
        recovery: { action: "replan" },
      },
    });
    expect(got.ok || got.failure.rpc).toBeUndefined();
  });
});
