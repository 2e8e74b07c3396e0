/**
 * The loader's checks for `mcp.json`, derived from the one definition in `config-schema.ts`: each
 * problem is reported with the JSON pointer of the field and the schema's sentence for it.
 */

import { MCP_CONFIG_SCHEMA } from "./config-schema.js";
import type { RawServerConfig } from "./config-types.js";
import { type ConfigIssue, checkSchema, type SchemaNode } from "./schema-check.js";

export { type ConfigIssue, pointerSegment } from "./schema-check.js";

const SCHEMA = MCP_CONFIG_SCHEMA as unknown as SchemaNode;

/** Checks one server entry. Returns hard issues; unknown fields go to `warnings`. */
export function validateServerEntry(entry: unknown, pointer: string, warnings: string[] = []): ConfigIssue[] {
  return checkSchema(SCHEMA, entry, { at: "#/$defs/server", pointer, warnings });
}

/** Checks a whole file's parsed value; unknown fields go to `warnings`. Every problem is collected, not just the first. */
export function validateConfigFile(value: unknown, warnings: string[] = []): ConfigIssue[] {
  return checkSchema(SCHEMA, value, { warnings });
}

/** The raw entry type after validation succeeded. */
export type ValidRawServer = RawServerConfig & { readonly disabled?: boolean; readonly description?: string };
