import type { ToolSpec } from "@toolwright/runtime";
import { validateFailure } from "@toolwright/runtime/caller";
import { describe, expect, it } from "vitest";
import { apisFromGenerated, bindApis, camelIdentifier, deriveApis } from "./bindings.js";
import type { CodeModeApi } from "./check/api.js";
import { createCodeMode } from "./code-mode.js";
import type { ExecutionError } from "./executor.js";
import { programFailure } from "./failures.js";

const spec = (toolset: string, name: string, meta?: ToolSpec["meta"]): ToolSpec => ({
  id: `${toolset}.${name}`,
  toolset,
  name,
  providerName: `${toolset}_${name}`,
  inputSchema: { type: "object" },
  decodePayload: (v) => ({ ok: true, value: v }),
  ...(meta ? { meta } : {}),
});

const runner = (specs: ToolSpec[]) => ({
  specs: () => specs,
  lookup: (id: string) => specs.map((s) => ({ spec: s })).find((e) => e.spec.id === id),
});

describe("bindings", () => {
  it("camel-cases names the way the generator does", () => {
    expect(["read_graph", "get-sum", "getSum", "3d", "list files", ""].map(camelIdentifier)).toEqual([
      "readGraph",
      "getSum",
      "getSum",
      "_3d",
      "listFiles",
      "_",
    ]);
  });

  it("derives one namespace per toolset, keeps names that camel-case alike apart, and refuses non-identifiers", () => {
    const specs = [spec("my-files", "get_item"), spec("my-files", "getItem"), spec("memory", "read_graph")];
    expect(deriveApis(specs)).toEqual({
      myFiles: { getItem: "my-files.get_item", getItem2: "my-files.getItem" },
      memory: { readGraph: "memory.read_graph" },
    });
    expect(() => bindApis(runner(specs), { "no good": { a: "memory.read_graph" } }, () => true)).toThrow(
      /namespace "no good" is not a JavaScript identifier/,
    );
    expect(() => bindApis(runner(specs), { memory: { "a-b": "memory.read_graph" } }, () => true)).toThrow(/function "memory.a-b"/);
  });

  it("binds only tools the runner knows, offers to a model and the filter accepts", () => {
    const specs = [spec("memory", "read_graph"), spec("memory", "wipe", { ui: { visibility: ["app"] } }), spec("memory", "secret")];
    const bound = bindApis(
      runner(specs),
      { memory: { readGraph: "memory.read_graph", wipe: "memory.wipe", secret: "memory.secret", ghost: "memory.ghost" } },
      (s) => s.name !== "secret",
    );
    expect([...(bound.get("memory")?.keys() ?? [])]).toEqual(["readGraph"]);
  });

  it("reads the generated APIs' bindings as tool ids", () => {
    const api = { toolset: "memory", namespace: "memory", bindings: { readGraph: "read_graph" } } as unknown as CodeModeApi;
    expect(apisFromGenerated([api])).toEqual({ memory: { readGraph: "memory.read_graph" } });
  });
});

describe("createCodeMode options", () => {
  it("refuses a limit that is not a positive number, naming it", () => {
    expect(() =>
      createCodeMode({
        runtime: { ...runner([]), execute: async () => ({ ok: true, value: 1, content: [], structured: undefined }) },
        limits: { maxCalls: -1 },
      }),
    ).toThrow(/limit maxCalls must be a positive number, got -1/);
  });
});

describe("program failures", () => {
  it("every way a program ends is a valid ToolFailure, with the source as correct_call evidence where the program is at fault", () => {
    const errors: ExecutionError[] = [
      { type: "syntax", message: "SyntaxError: expecting ';'" },
      { type: "thrown", name: "TypeError", message: "x is undefined", stack: "    at <anonymous> (program.js:3:7)" },
      { type: "result", message: "not JSON" },
      { type: "deadlock", message: "stuck" },
      { type: "stopped", message: "diverged" },
      { type: "aborted", message: "aborted" },
      { type: "internal", message: "wasm" },
      ...(["wallTimeMs", "memoryBytes", "stackBytes", "maxCalls", "maxInFlight", "maxResultBytes", "maxConsoleBytes"] as const).map(
        (limit): ExecutionError => ({ type: "limit", limit, message: `${limit} passed` }),
      ),
    ];
    for (const error of errors) expect(validateFailure(programFailure(error, "return 1"))).toEqual([]);
    expect(programFailure(errors[1] as ExecutionError, "src")).toMatchObject({
      message: "the program threw TypeError: x is undefined (line 3, column 7)",
      recovery: { priorInput: "src" },
    });
    expect(programFailure({ type: "limit", limit: "maxCalls", message: "m" }, "")).toMatchObject({ reason: "max_tool_calls" });
    expect(programFailure({ type: "thrown", message: "Authorization: Bearer abc.def" }, "").message).not.toContain("abc.def");
  });
});
