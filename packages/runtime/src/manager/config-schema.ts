/**
 * The one definition of `mcp.json`. Everything else is derived from this object:
 * - the loader's checks (`config-validate.ts` walks it with `checkSchema`),
 * - the shipped `mcp-config.schema.json` (written from it by `packages/runtime/write-config-schema.mjs`, run by `npm run build`;
 *   `test/manager/config-schema.test.ts` fails when the committed file differs),
 * - the TypeScript shape of a raw entry (`RawServerEntry`, a type computed from it below).
 * Adding a field is one edit here plus its test (docs/architecture.md, "add a manager config field").
 *
 * It is plain JSON Schema 2020-12, so editors and ajv read the shipped copy. Three annotations,
 * which JSON Schema validators ignore, carry what a schema cannot say well:
 * - `x-message`: the sentence a user reads when this (sub)schema fails, instead of a generic one;
 * - `x-at`: the field the message points at, when the rule is about a sibling (`/url` for "type
 *   stdio takes command, not url");
 * - `x-unknown: "warn"`: on an object, keys not listed in `properties` are warnings, not errors,
 *   because files written for other clients (Claude, Cursor, VS Code) carry their own fields.
 */

import { BUILT_IN_ERAS } from "../revisions/registry.js";

const millis = { type: "integer", exclusiveMinimum: 0, "x-message": "must be a positive integer (milliseconds)" } as const;
const count = { type: "integer", exclusiveMinimum: 0, "x-message": "must be a positive integer (calls)" } as const;
const stringList = {
  type: "array",
  items: { type: "string", "x-message": "must be a string" },
  "x-message": "must be an array of strings",
} as const;
const stringMap = {
  type: "object",
  additionalProperties: { type: "string", "x-message": "must be a string" },
  "x-message": "must be an object of string values",
} as const;
const collisionPolicy = {
  description: "How a tool's model-facing name is chosen when two servers expose the same tool name.",
  enum: ["error", "prefix", "prefix-on-collision"],
} as const;
const HTTP_TYPES = ["http", "streamable-http", "sse"] as const;

/** `mcp.json` as JSON Schema 2020-12 with Toolwright's annotations (see the file comment). */
export const MCP_CONFIG_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "Toolwright mcp.json",
  description:
    "MCP servers for Toolwright: the mcpServers map Claude and Cursor use, plus Toolwright's own per-server fields. Strings in command, args, cwd, env values, url and headers may use ${VAR} and ${VAR:-default}.",
  type: "object",
  "x-message": "the file must hold a JSON object",
  properties: {
    $schema: { type: "string" },
    collisionPolicy: { $ref: "#/$defs/collisionPolicy" },
    mcpServers: {
      type: "object",
      description: "Server name (no dot) to server entry.",
      "x-message": "must be an object mapping names to servers",
      // Tool ids are `server.tool`, split at the first dot: a dot in a server name would misroute calls.
      propertyNames: { minLength: 1, pattern: "^[^.]+$", "x-message": "server names must be non-empty and contain no dot" },
      additionalProperties: { $ref: "#/$defs/server" },
    },
  },
  $defs: {
    collisionPolicy,
    millis,
    stringList,
    stringMap,
    outbound: {
      type: "object",
      description:
        "HTTP: which hosts and addresses may be reached, on the first request and every redirect hop. By default plain http:// only to loopback and no private addresses.",
      "x-message": "must be an object (allowedHosts, allowInsecureHttp, allowPrivateNetworks, allowLoopback)",
      properties: {
        allowedHosts: { ...stringList, description: "Host names (*.example.com for subdomains, optional :port); absent: any host." },
        allowInsecureHttp: { type: "boolean", default: false, description: "Allow plain http:// to hosts other than loopback." },
        allowPrivateNetworks: {
          type: "boolean",
          default: false,
          description: "Allow private, link-local and other non-public addresses (SSRF guard off).",
        },
        allowLoopback: { type: "boolean", default: true, description: "Allow 127.0.0.0/8 and ::1." },
      },
      // Unlike elsewhere, an unknown key is an error: a misspelled allow flag silently ignored would
      // leave the user believing the policy says what it does not.
      additionalProperties: false,
    },
    server: {
      type: "object",
      "x-message": "server entry must be an object",
      "x-unknown": "warn",
      properties: {
        type: {
          enum: ["stdio", ...HTTP_TYPES],
          "x-message": "unknown type {value} (expected stdio, http, streamable-http, sse)",
          description: '"http", "streamable-http" and "sse" are spellings other clients use for HTTP.',
        },
        command: {
          type: "string",
          minLength: 1,
          description: "stdio: executable, spawned without a shell.",
          "x-message": "must be a non-empty string",
        },
        args: { $ref: "#/$defs/stringList" },
        env: {
          ...stringMap,
          description:
            'stdio: variables for the child. The child sees only these plus PATH, HOME and locale; write "TOKEN": "${TOKEN}" to pass one through.',
        },
        cwd: { type: "string" },
        // The URL may start with a `${VAR}` reference, which expands only later: only its start is checked.
        url: { type: "string", pattern: "^(https?://|\\$\\{)", "x-message": "must be an http:// or https:// URL" },
        headers: {
          ...stringMap,
          // An object built from these names would get a new prototype instead of a header.
          propertyNames: { not: { const: "__proto__" }, "x-message": "header name {value} cannot be sent" },
        },
        outbound: { $ref: "#/$defs/outbound" },
        enabled: { type: "boolean", default: true },
        disabled: { type: "boolean", description: "Alias: disabled true is enabled false." },
        autoStart: { type: "boolean", default: true, description: "Connect in start(); false connects on first call." },
        era: { enum: ["auto", ...BUILT_IN_ERAS], default: "auto" },
        connectTimeoutMs: { $ref: "#/$defs/millis" },
        requestTimeoutMs: { $ref: "#/$defs/millis" },
        probeTimeoutMs: { $ref: "#/$defs/millis" },
        allowTools: { ...stringList, description: "Only these tools are exposed; * matches any run of characters." },
        denyTools: { ...stringList, description: "These tools are hidden, even if allowed." },
        lifecycle: {
          oneOf: [{ const: "keep-alive" }, { type: "object", properties: { idleTimeoutMs: millis }, required: ["idleTimeoutMs"] }],
          "x-message": 'must be "keep-alive" or { "idleTimeoutMs": <ms> }',
        },
        autoApprove: { oneOf: [{ type: "boolean" }, stringList], "x-message": "must be a boolean or an array of strings" },
        trusted: { type: "boolean", default: false, description: "Annotations from untrusted servers are treated as hints." },
        collisionPolicy: { $ref: "#/$defs/collisionPolicy" },
        description: { type: "string" },
        limits: {
          type: "object",
          description: "Call limits a durable engine enforces across all workers (@toolwright/dbos turns them into queues).",
          "x-message": "must be an object { concurrency?, workerConcurrency?, rateLimit? }",
          "x-unknown": "warn",
          properties: {
            concurrency: { ...count, description: "Calls in flight at once, across all workers." },
            workerConcurrency: { ...count, description: "Calls in flight at once on one worker." },
            rateLimit: {
              type: "object",
              "x-message": 'must be { "calls": <n>, "periodMs": <ms> }',
              properties: { calls: count, periodMs: millis },
              required: ["calls", "periodMs"],
            },
          },
        },
      },
      // Rules across fields, each with its own sentence; every one that fails is reported.
      allOf: [
        { not: { required: ["command", "url"] }, "x-message": "has both command and url; a server is either stdio or HTTP" },
        { anyOf: [{ required: ["command"] }, { required: ["url"] }], "x-message": "needs either command (stdio) or url (HTTP)" },
        {
          if: { required: ["type"], properties: { type: { const: "stdio" } } },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords; this object is never awaited
          then: { not: { required: ["url"] } },
          "x-at": "url",
          "x-message": "type stdio takes command, not url",
        },
        {
          if: { required: ["type"], properties: { type: { enum: HTTP_TYPES } } },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords; this object is never awaited
          then: { not: { required: ["command"] } },
          "x-at": "command",
          "x-message": "types http, streamable-http and sse take url, not command",
        },
      ],
    },
  },
} as const;

/** The TypeScript type of a value that passes (sub)schema `S`, for the keywords this schema uses. */
export type FromConfigSchema<S> = S extends { readonly $ref: `#/$defs/${infer K extends keyof (typeof MCP_CONFIG_SCHEMA)["$defs"]}` }
  ? FromConfigSchema<(typeof MCP_CONFIG_SCHEMA)["$defs"][K]>
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly enum: readonly (infer E)[] }
      ? E
      : S extends { readonly oneOf: readonly (infer O)[] }
        ? FromConfigSchema<O>
        : S extends { readonly type: "string" }
          ? string
          : S extends { readonly type: "boolean" }
            ? boolean
            : S extends { readonly type: "integer" | "number" }
              ? number
              : S extends { readonly type: "array"; readonly items: infer I }
                ? readonly FromConfigSchema<I>[]
                : S extends { readonly type: "object"; readonly properties: infer P }
                  ? {
                      readonly [K in keyof P as K extends (S extends { readonly required: readonly (infer R)[] } ? R : never)
                        ? K
                        : never]: FromConfigSchema<P[K]>;
                    } & {
                      readonly [K in keyof P as K extends (S extends { readonly required: readonly (infer R)[] } ? R : never)
                        ? never
                        : K]?: FromConfigSchema<P[K]>;
                    }
                  : S extends { readonly type: "object"; readonly additionalProperties: infer A }
                    ? { readonly [key: string]: FromConfigSchema<A> }
                    : unknown;

/** One `mcpServers` entry as the schema accepts it (before `${VAR}` expansion), computed from the schema. */
export type RawServerEntry = FromConfigSchema<(typeof MCP_CONFIG_SCHEMA)["$defs"]["server"]>;
