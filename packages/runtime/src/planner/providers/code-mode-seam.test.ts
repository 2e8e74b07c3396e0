import { describe, expect, it } from "vitest";
import type { ToolRunner } from "../../caller/tool-request.js";
import type { ToolSpec } from "../../caller/tool-spec.js";
import { createProviderTools } from "./binding.js";
import { type CodeModePlugin, decideCodeMode } from "./code-mode-seam.js";

const spec = (name: string, description = "d"): ToolSpec => ({
  id: `t.${name}`,
  toolset: "t",
  name,
  providerName: name,
  description,
  inputSchema: { type: "object", properties: {} },
  decodePayload: (value) => ({ ok: true, value }),
});

/** A plug-in that offers one marker tool, and records what it wrapped. */
function plugin(tokensPerTool?: number): CodeModePlugin & { wrapped: ToolRunner[] } {
  const wrapped: ToolRunner[] = [];
  return {
    wrapped,
    ...(tokensPerTool === undefined ? {} : { catalogueTokens: (specs: readonly ToolSpec[]) => specs.length * tokensPerTool }),
    wrap(inner) {
      wrapped.push(inner);
      return { specs: () => [spec("run_code")], lookup: () => undefined, execute: (r, o) => inner.execute(r, o) };
    },
  };
}

const runner = (specs: ToolSpec[]): ToolRunner => ({
  specs: () => specs,
  lookup: (name) => {
    const s = specs.find((x) => x.id === name || x.providerName === name);
    return s ? { spec: s, caller: { server: "t" } } : undefined;
  },
  execute: async () => ({ ok: true, value: null, content: [], structured: undefined }),
});

describe("decideCodeMode", () => {
  it("switches at the threshold share of the window, by the plug-in's count", () => {
    const specs = [spec("a"), spec("b")];
    expect(decideCodeMode(specs, { plugin: plugin(100), contextWindow: 10_000, threshold: 0.02 }).code).toBe(false); // 200 = 2%
    expect(decideCodeMode(specs, { plugin: plugin(101), contextWindow: 10_000, threshold: 0.02 }).code).toBe(true);
    expect(decideCodeMode(specs, { plugin: plugin(1), mode: "code" }).code).toBe(true);
    expect(decideCodeMode(specs, { plugin: plugin(1_000_000), mode: "direct" }).code).toBe(false);
  });

  it("estimates from the definitions' JSON when the plug-in gives no count", () => {
    const big = Array.from({ length: 40 }, (_, i) => spec(`tool_${i}`, "x".repeat(500)));
    const d = decideCodeMode(big, { plugin: plugin(), contextWindow: 128_000 });
    expect(d.catalogueTokens).toBeGreaterThan((40 * 500) / 4);
    expect(d.code).toBe(true);
  });

  it("names a bad option", () => {
    expect(() => decideCodeMode([], { plugin: plugin(), threshold: -1 })).toThrow(/codeMode.threshold/);
    expect(() => decideCodeMode([], { plugin: plugin(), contextWindow: 0 })).toThrow(/codeMode.contextWindow/);
    expect(() => decideCodeMode([], { plugin: plugin(), mode: "always" as never })).toThrow(/codeMode.mode/);
  });
});

describe("the binding with a code-mode plug-in", () => {
  it("offers the plug-in's tools over the filtered catalogue when code mode is chosen, and the catalogue otherwise", () => {
    const p = plugin(10);
    const specs = [spec("a"), spec("b"), spec("c")];
    const code = createProviderTools(runner(specs), {
      format: "anthropic",
      filter: (s) => s.name !== "c",
      codeMode: { plugin: p, mode: "code" },
    });
    expect(code.definitions().map((d) => d.name)).toEqual(["run_code"]);
    expect(p.wrapped[0]?.specs().map((s) => s.name)).toEqual(["a", "b"]);
    const direct = createProviderTools(runner(specs), { format: "anthropic", codeMode: { plugin: p, contextWindow: 1_000_000 } });
    expect(direct.definitions().map((d) => d.name)).toEqual(["a", "b", "c"]);
    expect(direct.codeMode()).toEqual({ code: false, catalogueTokens: 30, contextWindow: 1_000_000, threshold: 0.02 });
  });
});
