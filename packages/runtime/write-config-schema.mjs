// Writes mcp-config.schema.json, the JSON Schema the package ships for editors and other tools,
// from its one definition (src/manager/config-schema.ts, compiled by tsc into dist/tsc). Run by the
// build after tsc; test/manager/config-schema.test.ts fails when the committed copy is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

const dir = fileURLToPath(new URL(".", import.meta.url));
const { MCP_CONFIG_SCHEMA } = await import(new URL("./dist/tsc/manager/config-schema.js", import.meta.url).href);
const target = `${dir}mcp-config.schema.json`;
let current;
try {
  current = JSON.parse(readFileSync(target, "utf8"));
} catch {
  current = undefined;
}
// Rewritten only when the content changed, so a build never touches an up-to-date file.
if (!isDeepStrictEqual(current, MCP_CONFIG_SCHEMA)) writeFileSync(target, `${JSON.stringify(MCP_CONFIG_SCHEMA, null, 2)}\n`);
