/**
 * The lock file's shape, checked when it is read (gen, pull, add, report) and before pull writes a
 * server's entry: a JSON Schema for the structure, then what a schema cannot say (tool names
 * listed once, each tool's schemas valid JSON Schema, the prompt/resource lists of
 * `lock-surface.ts`). A lock is a file users edit, merge and commit; a problem in it is reported as
 * a `LockError` naming the lock file, the server, the tool and the field, never blamed on the design.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { checkLockedSurface } from "./lock-surface.js";
import { checkSchema, createAjv, normalizeSchema } from "./schema.js";

/** Where in a lock a problem is: the server, the tool (by name, or `tools[3]` when it has none) and the field. */
export interface LockLocation {
  readonly server?: string;
  readonly tool?: string;
  /** Dotted path inside the server entry or the tool (`inputSchema.type`, `fingerprints`). */
  readonly field?: string;
}

/** A malformed lock file. The CLI prints the message (exit 2); rerunning `toolwright pull` rewrites the lock. */
export class LockError extends Error {
  override readonly name = "LockError";
  constructor(
    /** The lock file, as the user knows it (relative to the working directory). */
    readonly file: string,
    readonly location: LockLocation,
    readonly problem: string,
  ) {
    super(`${file}${describe(location)}: ${problem}`);
  }
}

function describe(at: LockLocation): string {
  let out = "";
  if (at.server !== undefined) out += ` server ${JSON.stringify(at.server)}`;
  if (at.tool !== undefined) out += ` tool ${JSON.stringify(at.tool)}`;
  if (at.field !== undefined) out += ` field ${JSON.stringify(at.field)}`;
  return out;
}

const text = { type: "string" } as const;
const object = { type: "object" } as const;

/**
 * Tools are what a server listed, so unknown fields are kept; the fields Toolwright reads must
 * have their MCP types. Server entries and the file itself are Toolwright's own: unknown fields
 * there (a typo, a `__proto__` key) are refused.
 */
const LOCK_SCHEMA = {
  type: "object",
  required: ["version", "servers"],
  additionalProperties: false,
  properties: {
    version: { const: 1 },
    servers: { type: "object", additionalProperties: { $ref: "#/$defs/server" } },
  },
  $defs: {
    server: {
      type: "object",
      required: ["tools"],
      additionalProperties: false,
      properties: {
        tools: { type: "array", items: { $ref: "#/$defs/tool" } },
        fingerprint: text,
        fingerprints: { type: "object", additionalProperties: text },
        instructions: { type: ["string", "null"] },
        serverInfo: { type: "object", required: ["name", "version"], properties: { name: text, version: text } },
        prompts: { type: "array", items: object },
        resources: { type: "array", items: object },
        resourceTemplates: { type: "array", items: object },
      },
    },
    tool: {
      type: "object",
      required: ["name", "inputSchema"],
      properties: {
        name: { type: "string", minLength: 1 },
        title: text,
        description: text,
        inputSchema: { type: "object", required: ["type"], properties: { type: { const: "object" } } },
        outputSchema: object,
        annotations: {
          type: "object",
          properties: {
            title: text,
            readOnlyHint: { type: "boolean" },
            destructiveHint: { type: "boolean" },
            idempotentHint: { type: "boolean" },
            openWorldHint: { type: "boolean" },
          },
        },
        _meta: object,
        execution: object,
        icons: { type: "array" },
      },
    },
  },
} as const;

let compiled: { readonly ajv: Ajv2020; readonly validate: ValidateFunction } | undefined;
function validator(): { readonly ajv: Ajv2020; readonly validate: ValidateFunction } {
  if (!compiled) {
    const ajv = createAjv(undefined, { allErrors: false });
    compiled = { ajv, validate: ajv.compile(LOCK_SCHEMA) };
  }
  return compiled;
}

const isObject = (v: unknown): v is { readonly [key: string]: unknown } => typeof v === "object" && v !== null && !Array.isArray(v);

/** The tool's name when it has a usable one. */
function toolName(server: unknown, index: number): string | undefined {
  const tools = isObject(server) ? server.tools : undefined;
  const name = Array.isArray(tools) && isObject(tools[index]) ? tools[index].name : undefined;
  return typeof name === "string" && name !== "" ? name : undefined;
}

/** Splits a JSON pointer into the server, the tool and the field, for the message. */
function locate(lock: unknown, pointer: readonly string[]): LockLocation {
  if (pointer[0] !== "servers" || pointer.length < 2) return pointer.length > 0 ? { field: pointer.join(".") } : {};
  const server = pointer[1] as string;
  const entry = isObject(lock) && isObject(lock.servers) ? lock.servers[server] : undefined;
  const rest = pointer.slice(2);
  if (rest[0] === "tools" && rest.length >= 2 && /^\d+$/.test(rest[1] as string)) {
    const tool = toolName(entry, Number(rest[1]));
    // A tool without a usable name is named by its place in the list.
    const field = tool === undefined ? [`tools[${rest[1]}]`, ...rest.slice(2)].join(".") : rest.slice(2).join(".");
    return { server, ...(tool === undefined ? {} : { tool }), ...(field === "" ? {} : { field }) };
  }
  return rest.length > 0 ? { server, field: rest.join(".") } : { server };
}

/** One ajv error as a location and a sentence. */
function explain(lock: unknown, error: ErrorObject): { at: LockLocation; problem: string } {
  const pointer = error.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  const params = error.params as { missingProperty?: string; additionalProperty?: string; allowedValue?: unknown };
  if (error.keyword === "required" && params.missingProperty !== undefined)
    return { at: locate(lock, [...pointer, params.missingProperty]), problem: "is missing" };
  if (error.keyword === "additionalProperties" && params.additionalProperty !== undefined)
    return { at: locate(lock, [...pointer, params.additionalProperty]), problem: "is not a field of a toolwright lock" };
  if (error.keyword === "const") return { at: locate(lock, pointer), problem: `must be ${JSON.stringify(params.allowedValue)}` };
  return { at: locate(lock, pointer), problem: error.message ?? `fails ${error.keyword}` };
}

/** Checks a parsed lock; throws `LockError` naming `file` and where (server, tool, field). */
export function checkLockShape(lock: unknown, file: string): void {
  const { ajv, validate } = validator();
  if (!validate(lock)) {
    const first = validate.errors?.[0];
    if (first === undefined) throw new LockError(file, {}, "is not a version 1 toolwright lock");
    const { at, problem } = explain(lock, first);
    throw new LockError(file, at, problem);
  }
  const servers = (lock as { servers: { [name: string]: { tools: { [field: string]: unknown }[] } } }).servers;
  for (const [server, entry] of Object.entries(servers)) {
    const seen = new Set<string>();
    for (const tool of entry.tools) {
      const name = tool.name as string;
      if (seen.has(name)) throw new LockError(file, { server, tool: name }, "is listed twice");
      seen.add(name);
      for (const field of ["inputSchema", "outputSchema"] as const) {
        if (tool[field] === undefined) continue;
        let problem: { readonly message: string; readonly pointer?: string } | undefined;
        try {
          problem = checkSchema(ajv, normalizeSchema(tool[field]));
        } catch (error) {
          problem = { message: error instanceof Error ? error.message : String(error) };
        }
        if (problem) {
          const inner = problem.pointer?.split("/").slice(1).join(".");
          throw new LockError(file, { server, tool: name, field: inner ? `${field}.${inner}` : field }, problem.message);
        }
      }
    }
    const surface = checkLockedSurface(entry as { readonly [field: string]: unknown });
    if (surface) throw new LockError(file, { server }, surface);
  }
}
