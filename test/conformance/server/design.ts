/**
 * The conformance server, declared with the DSL: the tools the official harness's server scenarios
 * call, with the exact names and schemas they expect.
 */
import { mcpServer, number, object, raw, string } from "../../../packages/dsl/src/index.js";

const none = object({});

/** JSON Schema 2020-12 features the `json-schema-2020-12` scenario checks are kept verbatim. */
export const JSON_SCHEMA_2020_12_INPUT = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword the scenario checks.
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
} as const;

/** The `mcpServer` declaration the conformance server serves. */
export const conformanceServer = mcpServer(
  "toolwright-conformance",
  { version: "1.0.0", protocolVersion: "2025-11-25", instructions: "Conformance test server built on @toolwright/runtime/server." },
  (t) => {
    t.tool("test_simple_text", { description: "Returns simple text content", input: none, annotations: { readOnly: true } });
    t.tool("test_image_content", { description: "Returns a 1x1 PNG image", input: none });
    t.tool("test_audio_content", { description: "Returns a tiny WAV clip", input: none });
    t.tool("test_embedded_resource", { description: "Returns an embedded text resource", input: none });
    t.tool("test_multiple_content_types", { description: "Returns text, image and resource content", input: none });
    t.tool("test_tool_with_logging", { description: "Sends three log notifications while running", input: none });
    t.tool("test_error_handling", { description: "Always fails with an isError result", input: none });
    t.tool("test_tool_with_progress", { description: "Reports progress 0, 50 and 100 of 100", input: none });
    t.tool("test_sampling", {
      description: "Asks the client's LLM through sampling",
      input: object({ prompt: string().describe("The prompt to send to the LLM") }),
    });
    t.tool("test_elicitation", {
      description: "Asks the user through elicitation",
      input: object({ message: string().describe("The message to show the user") }),
    });
    t.tool("test_elicitation_sep1034_defaults", { description: "Elicitation with defaults on every primitive type", input: none });
    t.tool("test_elicitation_sep1330_enums", { description: "Elicitation with every enum variant", input: none });
    t.tool("json_schema_2020_12_tool", { description: "Tool with JSON Schema 2020-12 features", input: raw(JSON_SCHEMA_2020_12_INPUT) });
    t.tool("test_missing_capability", { description: "Needs the client's sampling capability (2026-07-28 diagnostic)", input: none });
    t.tool("test_logging_tool", { description: "Logs three messages (2026-07-28 diagnostic: none without a logLevel)", input: none });
    // 2026-07-28 input_required (SEP-2322) tools: handlers await ctx.input and are replayed per round.
    t.tool("test_input_required_result_elicitation", { description: "Asks for a name (input_required)", input: none });
    t.tool("test_input_required_result_request_state", { description: "Asks for a confirmation with requestState", input: none });
    t.tool("test_input_required_result_multi_round", { description: "Two rounds of questions", input: none });
    t.tool("test_input_required_result_tampered_state", { description: "Rejects an altered requestState", input: none });
    t.tool("test_input_required_result_capabilities", { description: "Asks only through declared capabilities", input: none });
    t.tool("test_input_required_result_sampling", { description: "Asks the client's LLM (input_required)", input: none });
    t.tool("test_input_required_result_list_roots", { description: "Asks for the client's roots (input_required)", input: none });
    t.tool("test_input_required_result_multiple_inputs", { description: "Asks three questions at once", input: none });
    t.tool("test_streaming_elicitation", { description: "Asks through elicitation mid-call", input: none });
    t.tool("test_header_param", {
      description: "Mirrors its region argument into the Mcp-Param-Region header (SEP-2243)",
      input: object({ region: string().describe("Where to run").with({ "x-mcp-header": "Region" }), note: string().optional() }),
    });
    t.tool("test_trigger_tool_change", { description: "Announces a tools/list change to listeners (2026-07-28 diagnostic)", input: none });
    t.tool("test_trigger_prompt_change", {
      description: "Announces a prompts/list change to listeners (2026-07-28 diagnostic)",
      input: none,
    });
    t.tool("test_reconnection", { description: "Closes its SSE stream mid-call; the client resumes with Last-Event-ID", input: none });
    // 2026-07-28 tasks extension (SEP-2663) fixtures.
    t.tool("greet", { description: "Greets synchronously (never a task)", input: object({ name: string() }) });
    t.tool("slow_compute", {
      description: "Sleeps for `seconds`, then answers (a task)",
      input: object({ seconds: number(), label: string().optional() }),
      task: { support: "optional" },
    });
    t.tool("failing_job", { description: "A task whose tool reports an execution error", input: none, task: { support: "required" } });
    t.tool("protocol_error_job", { description: "A task that fails with a JSON-RPC error", input: none, task: { support: "optional" } });
    t.tool("confirm_delete", {
      description: "A task that asks for confirmation, then deletes",
      input: object({ filename: string() }),
      task: { support: "optional" },
    });
    t.tool("multi_input", { description: "A task that asks two questions at once", input: none, task: { support: "optional" } });
    t.tool("test_tool_with_task", {
      description: "Gathers a name through input_required, then continues as a task",
      input: none,
      task: { support: "required", start: "after-input" },
    });
  },
);
