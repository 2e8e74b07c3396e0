import type { DesignDecl } from "@toolwright/dsl";
import { FAILURE_KINDS, FAILURE_REASONS, ISSUE_CONSTRAINTS_LIST, RECOVERY_ACTIONS } from "@toolwright/runtime/caller";
import { describe, expect, it } from "vitest";
import { resolveDesign } from "../resolve/resolve.js";
import { countTokens } from "../tokens/count.js";
import { buildCodeModeApi, codeModeNamespace, summaryOf } from "./code-mode.js";
import { codeModePrelude } from "./code-mode-prelude.js";

function toolset(name: string, tools: unknown[], description?: string) {
  const d = {
    kind: "design",
    toolsets: [{ kind: "toolset", name, description, provider: { kind: "external-mcp", server: "w", suite: "w" }, tools }],
    agents: [],
    servers: [],
  };
  return resolveDesign(d as unknown as DesignDecl, { file: "d.ts" }).toolsets[0]!;
}

const weather = {
  kind: "tool",
  name: "get-weather",
  description: "Current weather for a city. Uses the public feed.",
  annotations: { readOnly: true },
  input: {
    type: "object",
    properties: { city: { type: "string", enum: ["Paris", "Oslo"] } },
    required: ["city"],
    additionalProperties: false,
  },
  output: { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
  examples: [{ city: "Oslo" }],
};
const ping = { kind: "tool", name: "ping", input: { type: "object", properties: { note: { type: "string" } } } };
const withPromiseDef = {
  kind: "tool",
  name: "a-shadow",
  description: "A $defs key named like the globals the declarations use.",
  input: {
    type: "object",
    $defs: { Promise: { type: "string" }, ToolError: { type: "number" } },
    properties: { p: { $ref: "#/$defs/Promise" }, e: { $ref: "#/$defs/ToolError" } },
    required: ["p"],
  },
};

describe("buildCodeModeApi", () => {
  it("prints one namespace with tools sorted by wire name, result types from outputSchema and unknown without one", async () => {
    const api = await buildCodeModeApi(toolset("weather-tools", [weather, ping], "Weather */ and pings."));
    expect(api.namespace).toBe("weatherTools");
    expect(api.index.map((e) => e.tool)).toEqual(["get-weather", "ping"]);
    expect(api.bindings).toEqual({ getWeather: "get-weather", ping: "ping" });
    expect(api.declarations).toMatch(
      /^\/\*\* Toolset "weather-tools": Weather \*\\\/ and pings\. \*\/\ndeclare namespace weatherTools \{\n/,
    );
    expect(api.declarations).toContain("export function getWeather(input: GetWeatherPayload): Promise<GetWeatherResult>;");
    expect(api.declarations).toContain("export function ping(input?: PingPayload): Promise<unknown>;");
    expect(api.declarations).not.toContain("PingResult");
    expect(api.declarations).toContain('city: ("Paris" | "Oslo")');
    expect(api.declarations).toContain('Tool "get-weather" (read-only).');
    expect(api.declarations).toContain('@example await weatherTools.getWeather({"city":"Oslo"})');
    // The description is said once, on the function, not again on its types.
    expect(api.declarations.split("Current weather for a city").length).toBe(2);
  });

  it("index lines are one line each: signature, then the first sentence; every token count is o200k of its text", async () => {
    const api = await buildCodeModeApi(toolset("w", [weather, ping]));
    const [first, second] = api.index;
    expect(first).toMatchObject({
      name: "getWeather",
      signature: "w.getWeather(input: GetWeatherPayload): Promise<GetWeatherResult>",
      summary: "Current weather for a city.",
      line: "w.getWeather(input: GetWeatherPayload): Promise<GetWeatherResult> // Current weather for a city.",
    });
    expect(second!.line).toBe("w.ping(input?: PingPayload): Promise<unknown>");
    for (const e of api.index) expect(e.tokens).toBe(countTokens(e.line));
    for (const d of Object.values(api.details)) expect(d.tokens).toBe(countTokens(d.text));
    expect(api.tokens).toBe(countTokens(api.declarations));
    expect(api.preludeTokens).toBe(countTokens(api.prelude));
    expect(api.tokens).toBeGreaterThan(Math.max(...Object.values(api.details).map((d) => d.tokens)));
  });

  it("details are self-contained: the tool's own types plus the shared definitions they name, transitively", async () => {
    const ref = {
      kind: "tool",
      name: "b-uses-defs",
      input: {
        type: "object",
        $defs: { Outer: { type: "object", properties: { inner: { $ref: "#/$defs/Inner" } } }, Inner: { type: "string" } },
        properties: { o: { $ref: "#/$defs/Outer" } },
      },
    };
    const api = await buildCodeModeApi(toolset("w", [ref, ping]));
    const detail = api.details.bUsesDefs!.text;
    expect(detail).toMatch(/export interface Outer\b/);
    expect(detail).toMatch(/export type Inner\b/);
    expect(detail).toContain("export function bUsesDefs(");
    expect(api.details.ping!.text).not.toMatch(/Outer|Inner/);
  });

  it("no schema definition can take a global name the declarations use", async () => {
    const api = await buildCodeModeApi(toolset("w", [withPromiseDef]));
    expect(api.declarations).not.toMatch(/export (type|interface) (Promise|ToolError)\b/);
    expect(api.declarations).toContain("export function aShadow(input: AShadowPayload): Promise<unknown>;");
  });

  it("is deterministic: the same design prints the same text, whatever the declaration order", async () => {
    const a = await buildCodeModeApi(toolset("w", [weather, ping]));
    const b = await buildCodeModeApi(toolset("w", [ping, weather]));
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it("keeps namespaces off the globals the sandbox and the library define", () => {
    expect(codeModeNamespace({ memberName: "console" })).toBe("console_");
    expect(codeModeNamespace({ memberName: "globalThis" })).toBe("globalThis_");
    expect(codeModeNamespace({ memberName: "memory" })).toBe("memory");
  });

  it("summaries are one line, the first sentence, at most 120 characters", () => {
    expect(summaryOf({ description: "First.\nSecond line.", title: undefined })).toBe("First.");
    expect(summaryOf({ description: undefined, title: "A\u2028title" })).toBe("A title");
    expect(summaryOf({ description: "\u0085a\u0085b\r\n", title: undefined })).toBe("a b");
    expect(summaryOf({ description: "x".repeat(300), title: undefined })).toHaveLength(120);
  });
});

describe("the prelude", () => {
  it("spells ToolError's kinds, recovery actions and issue constraints from the runtime's own lists", () => {
    const prelude = codeModePrelude();
    for (const list of [FAILURE_KINDS, FAILURE_REASONS, RECOVERY_ACTIONS, ISSUE_CONSTRAINTS_LIST])
      expect(prelude).toContain(list.map((k) => JSON.stringify(k)).join(" | "));
    expect(prelude).toMatch(/declare class ToolError extends Error \{/);
    expect(prelude).toMatch(/readonly kind: ToolErrorKind;/);
    expect(prelude).toMatch(/readonly recovery: ToolRecovery;/);
    expect(prelude).toMatch(/readonly issues: readonly ToolFieldIssue\[\];/);
    expect(prelude).toMatch(/readonly reason\?: ToolErrorReason;/);
  });
});
