/**
 * Tool specs for the recovery example, built by hand from a live `tools/list`: each input schema
 * is compiled once with ajv (example-only dependency) and wrapped with the runtime's `createDecoder`.
 * Generated code (`toolwright gen`) emits the same shape with precompiled validators.
 */
import type { Caller, SpecAnnotations, ToolDescriptor, ToolSpec } from "@toolwright/runtime";
import { createDecoder, type ValidateFunction } from "@toolwright/runtime/codegen";
import AjvModule from "ajv";
import formatsModule from "ajv-formats";

// ajv is CommonJS; under ESM its class may sit on `default`.
const Ajv = ((AjvModule as unknown as { default?: typeof AjvModule }).default ?? AjvModule) as typeof AjvModule;
const addFormats = ((formatsModule as unknown as { default?: typeof formatsModule }).default ?? formatsModule) as typeof formatsModule;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

/** Example payloads the model sees when it has to correct a call. */
const EXAMPLES: { readonly [wireName: string]: unknown } = {
  create_entities: { entities: [{ name: "Ada Lovelace", entityType: "person", observations: ["wrote the first program"] }] },
  search_nodes: { query: "Ada" },
  read_graph: {},
  read_text_file: { path: "/allowed/dir/notes.txt" },
  write_file: { path: "/allowed/dir/notes.txt", content: "hello" },
  list_allowed_directories: {},
  "trigger-long-running-operation": { duration: 2, steps: 2 },
};

/** Field path → description, from `description` keywords (arrays as `field[]`). */
function fieldDescriptions(schema: unknown, prefix = "", out: { [field: string]: string } = {}): { [field: string]: string } {
  const node = schema as { properties?: { [k: string]: unknown }; items?: unknown; description?: unknown } | undefined;
  if (!node || typeof node !== "object") return out;
  if (prefix && typeof node.description === "string") out[prefix] = node.description;
  for (const [key, child] of Object.entries(node.properties ?? {})) fieldDescriptions(child, prefix ? `${prefix}.${key}` : key, out);
  if (node.items) fieldDescriptions(node.items, `${prefix}[]`, out);
  return out;
}

function annotationsOf(tool: ToolDescriptor): SpecAnnotations {
  const a = tool.annotations ?? {};
  return {
    ...(a.readOnlyHint === undefined ? {} : { readOnly: a.readOnlyHint }),
    ...(a.destructiveHint === undefined ? {} : { destructive: a.destructiveHint }),
    ...(a.idempotentHint === undefined ? {} : { idempotent: a.idempotentHint }),
    ...(a.openWorldHint === undefined ? {} : { openWorld: a.openWorldHint }),
  };
}

/** One spec per listed tool, ids `<toolset>.<tool>`, provider names `<toolset>_<tool>`. */
export function specsFromTools(toolset: string, tools: readonly ToolDescriptor[]): ToolSpec[] {
  return tools.map((tool) => {
    const { $schema: _drop, ...inputSchema } = tool.inputSchema as { $schema?: unknown; [key: string]: unknown };
    const validate = ajv.compile(inputSchema) as unknown as ValidateFunction;
    const example = EXAMPLES[tool.name];
    return {
      id: `${toolset}.${tool.name}`,
      toolset,
      name: tool.name,
      providerName: `${toolset}_${tool.name}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64),
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema,
      annotations: annotationsOf(tool),
      ...(example === undefined ? {} : { exampleJson: JSON.stringify(example) }),
      fieldDescriptions: fieldDescriptions(inputSchema),
      decodePayload: createDecoder(validate),
    };
  });
}

/** Lists a caller's tools and builds their specs. Throws when the server cannot be listed (setup error). */
export async function specsFromCaller(toolset: string, caller: Caller): Promise<ToolSpec[]> {
  if (!caller.listTools) throw new Error(`caller ${caller.server} cannot list tools`);
  const listed = await caller.listTools();
  if (!listed.ok) throw new Error(`cannot list tools of ${caller.server}: ${listed.failure.message}`);
  return specsFromTools(toolset, listed.tools);
}
