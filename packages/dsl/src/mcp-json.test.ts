// `mcpJson()`: a server's connection read from an mcp.json at pull and gen time.
import { describe, expect, it } from "vitest";
import { design, externalServer, fromMCP, mcpJson, toolset } from "./index.js";

describe("mcpJson", () => {
  it("defaults to the project's .toolwright/mcp.json and can name another entry", () => {
    expect(mcpJson()).toEqual({ kind: "mcp-json", file: ".toolwright/mcp.json" });
    expect(mcpJson(".vscode/mcp.json", { entry: "web search" })).toEqual({
      kind: "mcp-json",
      file: ".vscode/mcp.json",
      entry: "web search",
    });
    const memory = externalServer("memory", mcpJson());
    const d = design({ toolsets: [toolset("memory", fromMCP(memory))] });
    expect(d.servers).toEqual([memory]);
    expect(Object.isFrozen(memory.connection)).toBe(true);
  });

  it("names an application's own config instead of a path, found per platform when loaded", () => {
    expect(mcpJson({ app: "claude-desktop" })).toEqual({ kind: "mcp-json", app: "claude-desktop" });
    expect(mcpJson({ app: "claude-desktop" }, { entry: "memory" })).toEqual({ kind: "mcp-json", app: "claude-desktop", entry: "memory" });
    const memory = externalServer("memory", mcpJson({ app: "claude-desktop" }));
    expect(design({ toolsets: [toolset("memory", fromMCP(memory))] }).servers).toEqual([memory]);
  });

  it.each([
    [() => mcpJson({ app: "notepad" } as never), /mcpJson\(\): app must be one of claude-desktop; got "notepad"/],
    [() => mcpJson({ app: "claude-desktop", file: "x" } as never), /mcpJson\(\): unknown field "file"/],
    [() => mcpJson(""), /mcpJson\(\): the file must be a non-empty path/],
    [() => mcpJson("x.json", { entry: "" }), /mcpJson\(\): entry must be a non-empty string/],
    [() => mcpJson("x.json", { file: "y" } as never), /mcpJson\(\): unknown option "file"/],
    [() => externalServer("m", { kind: "mcp-json" } as never), /externalServer\("m"\): mcpJson\(\) needs a file or an app/],
  ])("rejects bad input (%#)", (make, message) => {
    expect(make).toThrow(message);
  });
});
