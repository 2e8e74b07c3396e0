/**
 * Golden case: an `mcpServer` with its scaffold. The server's tools get types, precompiled
 * validators and `servers/calc/server.gen.ts` (typed handlers, createCalcServer, serveCalcServer);
 * a toolset over the same server gets the usual typed client, so the server can be called by its
 * own generated client. Its prompt, resource and resource template become typed handler stubs in
 * the scaffold (`getExplainPrompt(args)`, `readConstants()`, `readHistory({ day, entry })`) and typed
 * readers in the client. `hostile.server` and `empty` cover sanitized method names and a server
 * with no tools.
 */
import { array, design, fromMCP, integer, mcpServer, number, object, string, toolset } from "@toolwright/dsl";

export const calc = mcpServer(
  "calc",
  { version: "1.2.0", protocolVersion: "2025-11-25", title: "Calculator", instructions: "Small arithmetic." },
  (t) => {
    t.tool("add", {
      title: "Add",
      description: "Adds two numbers",
      input: object({ a: number().describe("First addend"), b: number().describe("Second addend") }),
      output: object({ sum: number() }),
      annotations: { readOnly: true, idempotent: true },
      examples: [{ a: 1, b: 2 }],
    });
    t.tool("divide", {
      description: "Divides a by b; text result",
      input: object({ a: number(), b: number() }),
    });
    t.tool("split-words", {
      description: "Splits text into at most `limit` words",
      input: object({ text: string({ minLength: 1 }), limit: integer({ minimum: 1, maximum: 100 }).optional() }),
      output: object({ words: array(string()), count: integer() }),
      meta: { "example.com/category": "text" },
    });
    t.prompt("explain", {
      title: "Explain a result",
      description: "Asks the model to explain an operation",
      arguments: [
        { name: "operation", description: "add, divide or split-words", required: true },
        { name: "style", description: "short or long" },
      ],
    });
    t.resource("calc://constants", { name: "constants", description: "Named constants as JSON", mimeType: "application/json" });
    t.resourceTemplate("calc://history/{day}{?entry}", { name: "history", description: "One day of results", mimeType: "text/plain" });
  },
);

/** Hostile names: reserved words and dots become safe method names; a server with no tools still compiles. */
const hostile = mcpServer("hostile.server", { version: "0.1.0" }, (t) => {
  t.tool("constructor", { input: object({}) });
  t.tool("class", { input: object({ "weird-key": string() }), output: object({ ok: string() }) });
  t.tool("get.thing", { input: object({}) });
});
const empty = mcpServer("empty", { version: "0.0.1" });

export default design({ toolsets: [toolset("calc", fromMCP(calc))], servers: [hostile, empty] });
