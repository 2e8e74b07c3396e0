/**
 * Issue 25 item 12: prompt arguments, completion values and completion context are strings in the
 * spec, and the generated scaffold used to stringify whatever came (`null` became "null", an
 * object "[object Object]"). The generated calc server (test/golden/mcp-server-scaffold) is served
 * over HTTP on 127.0.0.1 and called by the official SDK client (legacy era) and by plain fetch
 * (stateless 2026-07-28): every value the declaration does not allow is -32602 naming the argument,
 * and the handler never runs for it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { GetPromptResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ServeHandle } from "@toolwright/runtime/server";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveCalcServer } from "../golden/mcp-server-scaffold/expected/servers/calc/index.js";
import { postModern } from "../support/modern-fetch.js";
import { calcCompletions, calcHandlers, handlerCalls } from "./fixtures/scaffold-calc-handlers.js";

let http: ServeHandle;
let client: Client;

beforeAll(async () => {
  http = await serveCalcServer(calcHandlers, { transport: "http", port: 0, host: "127.0.0.1" }, { completions: calcCompletions });
  client = new Client({ name: "item-12", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url as string)));
});

afterAll(async () => {
  await client?.close();
  await http?.close();
});

/** The JSON-RPC error a call ends with (the SDK throws McpError), or undefined when it succeeded. */
async function rpcError(run: () => Promise<unknown>): Promise<{ code: number; message: string } | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return { code: error.code, message: error.message };
  }
}

/** A stateless 2026-07-28 request over fetch; the parsed JSON-RPC answer. */
async function modern(method: string, params: { [key: string]: unknown }) {
  return (await postModern(http.url as string, method, params)).body ?? {};
}

const NOT_STRINGS: [string, unknown][] = [
  ["null", null],
  ["an object", { op: "add" }],
  ["an array", ["add"]],
  ["a number", 7],
  ["a boolean", true],
];

describe("prompts/get refuses what the argument declaration does not allow (official SDK client, legacy era)", () => {
  it.each(NOT_STRINGS)("a required argument given as %s is -32602 naming it; the handler does not run", async (kind, value) => {
    const before = handlerCalls.length;
    const error = await rpcError(() =>
      client.request(
        { method: "prompts/get", params: { name: "explain", arguments: { operation: value } } } as never,
        GetPromptResultSchema,
      ),
    );
    expect(error?.code).toBe(-32602);
    expect(error?.message).toContain('"operation" must be a string');
    expect(error?.message).toContain(`got ${kind.replace(/^an? /, "")}`);
    expect(error?.message).not.toContain("[object Object]");
    expect(handlerCalls.length).toBe(before);
  });

  it("an optional argument given as null, and an undeclared argument, are refused by name", async () => {
    const optional = await rpcError(() => client.getPrompt({ name: "explain", arguments: { operation: "add", style: null as never } }));
    expect(optional).toMatchObject({ code: -32602 });
    expect(optional?.message).toContain('"style" must be a string (got null)');
    const undeclared = await rpcError(() => client.getPrompt({ name: "explain", arguments: { operation: "add", tone: "dry" } }));
    expect(undeclared).toMatchObject({ code: -32602 });
    expect(undeclared?.message).toContain('"tone" is not an argument of prompt explain');
  });

  it("string arguments still work, and a missing required one is still named", async () => {
    const ok = await client.getPrompt({ name: "explain", arguments: { operation: "divide" } });
    expect(JSON.stringify(ok.messages)).toContain("divide");
    const missing = await rpcError(() => client.getPrompt({ name: "explain", arguments: {} }));
    expect(missing?.message).toContain("Missing required argument(s) for prompt explain: operation");
  });

  it("any non-string JSON value for any declared argument is -32602 naming that argument (generated values)", async () => {
    const nonString = fc.jsonValue().filter((v) => typeof v !== "string");
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("operation", "style"), nonString, async (argument, value) => {
        const args = { operation: "add", [argument]: value };
        const error = await rpcError(() =>
          client.request({ method: "prompts/get", params: { name: "explain", arguments: args } } as never, GetPromptResultSchema),
        );
        expect(error?.code).toBe(-32602);
        expect(error?.message).toContain(`"${argument}" must be a string`);
      }),
      { numRuns: 40 },
    );
  });
});

describe("completion/complete refuses non-string values and context (official SDK client, legacy era)", () => {
  it.each(NOT_STRINGS)("argument.value given as %s is -32602", async (_kind, value) => {
    const error = await rpcError(() =>
      client.complete({ ref: { type: "ref/prompt", name: "explain" }, argument: { name: "operation", value: value as never } }),
    );
    expect(error?.code).toBe(-32602);
    expect(error?.message).toContain("argument.value must be a string");
  });

  it("context.arguments values must be strings; an undeclared argument or template variable is named", async () => {
    const context = await rpcError(() =>
      client.complete({
        ref: { type: "ref/resource", uri: "calc://history/{day}{?entry}" },
        argument: { name: "day", value: "2026" },
        context: { arguments: { entry: { id: 1 } as never } },
      }),
    );
    expect(context?.message).toContain('"entry" must be a string (got object)');
    const unknown = await rpcError(() =>
      client.complete({ ref: { type: "ref/resource", uri: "calc://history/{day}{?entry}" }, argument: { name: "month", value: "1" } }),
    );
    expect(unknown?.message).toContain('has no argument "month"');
    const ok = await client.complete({
      ref: { type: "ref/resource", uri: "calc://history/{day}{?entry}" },
      argument: { name: "day", value: "2026-12-0" },
    });
    expect(ok.completion.values).toEqual(["2026-12-01", "2026-12-02"]);
  });
});

describe("the same refusals in the stateless 2026-07-28 era (fetch)", () => {
  it("prompts/get with a null or object argument is -32602 naming it", async () => {
    for (const [, value] of NOT_STRINGS) {
      const answer = await modern("prompts/get", { name: "explain", arguments: { operation: value } });
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toContain('"operation" must be a string');
    }
    const ok = await modern("prompts/get", { name: "explain", arguments: { operation: "add" } });
    expect(JSON.stringify(ok.result)).toContain("add");
  });

  it("completion/complete with an object value is -32602", async () => {
    const answer = await modern("completion/complete", {
      ref: { type: "ref/prompt", name: "explain" },
      argument: { name: "operation", value: { a: 1 } },
    });
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toContain("argument.value must be a string (got object)");
  });
});
