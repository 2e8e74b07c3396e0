/**
 * `mcp.json` is defined once (packages/runtime/src/manager/config-schema.ts). The shipped JSON
 * Schema is written from it, and the loader's checks walk it: this file proves the three agree, and
 * that a new field needs no edit beyond the schema.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MCP_CONFIG_SCHEMA } from "../../packages/runtime/src/manager/config-schema.js";
import { validateConfigFile, validateServerEntry } from "../../packages/runtime/src/manager/config-validate.js";
import { checkSchema, type SchemaNode } from "../../packages/runtime/src/manager/schema-check.js";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default;
const ajv = new Ajv2020({ strict: false });
const validate = ajv.compile(MCP_CONFIG_SCHEMA);

/** Values each field may be given: right ones, wrong ones, and odd ones. */
const anyValue = fc.oneof(
  fc.constantFrom(
    "node",
    "",
    "http://127.0.0.1:1/mcp",
    "https://x.example/${T}",
    "ftp://x",
    "keep-alive",
    "stdio",
    "http",
    "sse",
    "websocket",
  ),
  fc.constantFrom("auto", "legacy", "2026-07-28", "error", "prefix", "prefix-on-collision"),
  fc.constantFrom(true, false, null, 0, -1, 1, 1.5, 1000),
  fc.constantFrom([], ["a"], ["a", 1], {}, { A: "b" }, { A: 1 }, { __proto__: null, x: "y" }),
  fc.constantFrom(
    { idleTimeoutMs: 5 },
    { idleTimeoutMs: 0 },
    { concurrency: 2 },
    { rateLimit: { calls: 1, periodMs: 2 } },
    { rateLimit: { calls: 1 } },
  ),
  fc.constantFrom({ allowedHosts: ["a.example"] }, { allowLoopback: "no" }, { allowAll: true }),
);
const fieldNames = [...Object.keys(MCP_CONFIG_SCHEMA.$defs.server.properties), "alwaysAllow", "weird/key~"];
const entry = fc.dictionary(fc.constantFrom(...fieldNames), anyValue, { maxKeys: 6 });

describe("the one definition of mcp.json", () => {
  it("the shipped mcp-config.schema.json is exactly the definition (npm run build writes it)", () => {
    const shipped = JSON.parse(readFileSync(join(import.meta.dirname, "../../packages/runtime/mcp-config.schema.json"), "utf8"));
    expect(shipped).toEqual(JSON.parse(JSON.stringify(MCP_CONFIG_SCHEMA)));
  });

  it("ajv and the loader give the same verdict on any entry (fast-check, 2,000 entries)", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("a", "b", "c.d", ""), entry, { maxKeys: 3 }),
        fc.constantFrom(undefined, "prefix", "nope"),
        (servers, policy) => {
          const file = policy === undefined ? { mcpServers: servers } : { mcpServers: servers, collisionPolicy: policy };
          const issues = validateConfigFile(file);
          expect(issues.length === 0, JSON.stringify({ file, issues, ajv: validate.errors })).toBe(validate(file) as boolean);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("every issue names a field of the entry and says what is wrong with it", () => {
    fc.assert(
      fc.property(entry, (e) => {
        for (const issue of validateServerEntry(e, "/mcpServers/s")) {
          expect(issue.pointer.startsWith("/mcpServers/s")).toBe(true);
          expect(issue.message).toMatch(/\w/);
          const field = issue.pointer.split("/")[3];
          if (field !== undefined) expect(Object.keys(e)).toContain(field.replace(/~1/g, "/").replace(/~0/g, "~"));
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it("unknown fields warn, with their pointer; listed fields never do", () => {
    fc.assert(
      fc.property(entry, (e) => {
        const warnings: string[] = [];
        validateServerEntry(e, "/s", warnings);
        const unknown = Object.keys(e).filter((k) => !(k in MCP_CONFIG_SCHEMA.$defs.server.properties));
        expect(warnings.filter((w) => /^\/s\/[^/]+: unknown field ignored$/.test(w))).toHaveLength(unknown.length);
      }),
      { numRuns: 500 },
    );
  });

  it("reports each problem once, in the schema's own words", () => {
    expect(validateServerEntry({ type: "websocket", url: "http://x" }, "/s")).toEqual([
      { pointer: "/s/type", message: 'unknown type "websocket" (expected stdio, http, streamable-http, sse)' },
    ]);
    expect(validateServerEntry({ command: "c", url: "http://x" }, "/s")).toEqual([
      { pointer: "/s", message: "has both command and url; a server is either stdio or HTTP" },
    ]);
    expect(validateServerEntry({ type: "http", command: "c" }, "/s")).toEqual([
      { pointer: "/s/command", message: "types http, streamable-http and sse take url, not command" },
    ]);
    expect(validateServerEntry({ command: "c", lifecycle: { idleTimeoutMs: 0 }, autoApprove: ["a", 1] }, "/s")).toEqual([
      { pointer: "/s/lifecycle/idleTimeoutMs", message: "must be a positive integer (milliseconds)" },
      { pointer: "/s/autoApprove/1", message: "must be a string" },
    ]);
    expect(validateConfigFile({ mcpServers: { "a.b": { command: "c" } } })).toEqual([
      { pointer: "/mcpServers/a.b", message: "server names must be non-empty and contain no dot" },
    ]);
  });

  it("a new field is one edit of the schema: the checks follow with no other change", () => {
    const server = MCP_CONFIG_SCHEMA.$defs.server;
    const extended = {
      ...MCP_CONFIG_SCHEMA,
      $defs: {
        ...MCP_CONFIG_SCHEMA.$defs,
        server: {
          ...server,
          properties: { ...server.properties, priority: { type: "integer", "x-message": "must be an integer priority" } },
        },
      },
    } as unknown as SchemaNode;
    const warnings: string[] = [];
    expect(checkSchema(extended, { command: "c", priority: 2 }, { at: "#/$defs/server", warnings })).toEqual([]);
    expect(warnings).toEqual([]);
    expect(checkSchema(extended, { command: "c", priority: "high" }, { at: "#/$defs/server", pointer: "/s" })).toEqual([
      { pointer: "/s/priority", message: "must be an integer priority" },
    ]);
    // The unchanged definition only warns about it.
    const before: string[] = [];
    expect(validateServerEntry({ command: "c", priority: "high" }, "/s", before)).toEqual([]);
    expect(before).toEqual(["/s/priority: unknown field ignored"]);
  });
});
