/**
 * How a mock lists a tool. A pulled toolset's mock lists each tool as the lock holds it (the
 * server's own `tools/list` entry: title, annotations, `execution`, `_meta`, icons, schemas with
 * their `$schema`), so `toolwright mock --verify` finds no difference a real server would not
 * show. A tool with no lock entry (a design's own tool) is listed from its generated spec.
 */
import type { SpecAnnotations } from "@toolwright/runtime/caller";
import type { ToolSpec } from "@toolwright/runtime/codegen";
import type { ServerTool, ToolAnnotationsWire } from "@toolwright/runtime/server";

/** The `tools/list` fields of a `ServerTool`. */
export type ToolListing = Pick<
  ServerTool,
  "title" | "description" | "inputSchema" | "outputSchema" | "annotations" | "_meta" | "execution" | "icons"
>;

type Json = { readonly [key: string]: unknown };
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const TASK_SUPPORT: ReadonlySet<unknown> = new Set(["forbidden", "optional", "required"]);

/**
 * The listing of one tool: the lock's entry when it is one for this tool (an object with the same
 * name and an object `inputSchema`), else the spec's fields. Fields of the wrong type in an edited
 * lock are left out rather than listed.
 */
export function listingOf(spec: ToolSpec, listed: unknown): ToolListing {
  if (!isObject(listed) || listed.name !== spec.name || !isObject(listed.inputSchema)) return fromSpec(spec);
  const execution = isObject(listed.execution) ? listed.execution : undefined;
  return {
    ...(typeof listed.title === "string" ? { title: listed.title } : {}),
    ...(typeof listed.description === "string" ? { description: listed.description } : {}),
    inputSchema: listed.inputSchema,
    ...(isObject(listed.outputSchema) ? { outputSchema: listed.outputSchema } : {}),
    ...(isObject(listed.annotations) ? { annotations: listed.annotations as ToolAnnotationsWire } : {}),
    ...(isObject(listed._meta) ? { _meta: listed._meta } : {}),
    ...(execution && (execution.taskSupport === undefined || TASK_SUPPORT.has(execution.taskSupport))
      ? { execution: execution as NonNullable<ServerTool["execution"]> }
      : {}),
    ...(Array.isArray(listed.icons) ? { icons: listed.icons as NonNullable<ServerTool["icons"]> } : {}),
  };
}

function fromSpec(spec: ToolSpec): ToolListing {
  const annotations = wireAnnotations(spec.annotations);
  return {
    ...(spec.title === undefined ? {} : { title: spec.title }),
    ...(spec.description === undefined ? {} : { description: spec.description }),
    inputSchema: spec.inputSchema,
    ...(spec.outputSchema === undefined ? {} : { outputSchema: spec.outputSchema }),
    ...(annotations === undefined ? {} : { annotations }),
  };
}

function wireAnnotations(a: SpecAnnotations | undefined): ToolAnnotationsWire | undefined {
  if (a === undefined) return undefined;
  return {
    ...(a.readOnly === undefined ? {} : { readOnlyHint: a.readOnly }),
    ...(a.destructive === undefined ? {} : { destructiveHint: a.destructive }),
    ...(a.idempotent === undefined ? {} : { idempotentHint: a.idempotent }),
    ...(a.openWorld === undefined ? {} : { openWorldHint: a.openWorld }),
  };
}
