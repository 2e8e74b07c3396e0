/**
 * Hand-written checks for `mcp.json` entries. The runtime has no schema library, so this file
 * mirrors `mcp-config.schema.json` and reports each problem with the JSON pointer of the field.
 */
import { listRevisions } from "../revisions/registry.js";
import type { RawServerConfig } from "./config-types.js";

/** One problem in a config file, located by JSON pointer. */
export interface ConfigIssue {
  readonly pointer: string;
  readonly message: string;
}

/** Escapes one JSON pointer segment (RFC 6901). */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

// The accepted values, as in mcp-config.schema.json (test/manager/config.test.ts runs samples through both). "http" and
// "streamable-http" are one transport: Claude's and Cursor's files spell it either way.
const SERVER_TYPES = ["stdio", "http", "streamable-http", "sse"];
/** `auto` and every registered revision's name (the revision registry is the one list of eras). */
const eras = (): readonly string[] => ["auto", ...listRevisions().map((r) => r.name)];
const POLICIES = ["error", "prefix", "prefix-on-collision"];
/** Fields we read. Others are warnings, not errors: files written for other clients carry their own. */
const KNOWN_FIELDS = new Set([
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
  "outbound",
  "enabled",
  "disabled",
  "autoStart",
  "era",
  "connectTimeoutMs",
  "requestTimeoutMs",
  "probeTimeoutMs",
  "allowTools",
  "denyTools",
  "lifecycle",
  "autoApprove",
  "trusted",
  "collisionPolicy",
  "description",
  "limits",
]);

/** A header object is built from these names; "__proto__" would set the object's prototype instead. */
const UNSENDABLE_HEADERS = new Set(["__proto__"]);

const isRecord = (v: unknown): v is { [key: string]: unknown } => typeof v === "object" && v !== null && !Array.isArray(v);

function stringArray(value: unknown, pointer: string, issues: ConfigIssue[]): void {
  if (!Array.isArray(value)) {
    issues.push({ pointer, message: "must be an array of strings" });
    return;
  }
  value.forEach((item, i) => {
    if (typeof item !== "string") issues.push({ pointer: `${pointer}/${i}`, message: "must be a string" });
  });
}

function stringMap(value: unknown, pointer: string, issues: ConfigIssue[]): void {
  if (!isRecord(value)) {
    issues.push({ pointer, message: "must be an object of string values" });
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string") issues.push({ pointer: `${pointer}/${pointerSegment(k)}`, message: "must be a string" });
  }
}

function positiveInt(value: unknown, pointer: string, issues: ConfigIssue[], unit = "milliseconds"): void {
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
    issues.push({ pointer, message: `must be a positive integer (${unit})` });
  }
}

/** `limits` (durable runs): concurrency per worker and overall, and a rate limit; unknown keys warn like unknown fields. */
function limits(value: unknown, pointer: string, issues: ConfigIssue[], warnings: string[]): void {
  if (!isRecord(value)) return void issues.push({ pointer, message: "must be an object { concurrency?, workerConcurrency?, rateLimit? }" });
  for (const key of ["concurrency", "workerConcurrency"])
    if (value[key] !== undefined) positiveInt(value[key], `${pointer}/${key}`, issues, "calls");
  const rate = value.rateLimit;
  if (rate !== undefined) {
    if (!isRecord(rate)) issues.push({ pointer: `${pointer}/rateLimit`, message: 'must be { "calls": <n>, "periodMs": <ms> }' });
    else {
      positiveInt(rate.calls, `${pointer}/rateLimit/calls`, issues, "calls");
      positiveInt(rate.periodMs, `${pointer}/rateLimit/periodMs`, issues);
    }
  }
  for (const key of Object.keys(value))
    if (!["concurrency", "workerConcurrency", "rateLimit"].includes(key))
      warnings.push(`${pointer}/${pointerSegment(key)}: unknown field ignored`);
}

const OUTBOUND_FLAGS = ["allowInsecureHttp", "allowPrivateNetworks", "allowLoopback"];

/**
 * `outbound`, the SSRF policy. Unlike other fields, an unknown key here is an error: a misspelled
 * allow flag silently ignored would leave the user believing the policy says what it does not.
 */
function outbound(value: unknown, pointer: string, issues: ConfigIssue[]): void {
  if (!isRecord(value)) {
    issues.push({ pointer, message: "must be an object (allowedHosts, allowInsecureHttp, allowPrivateNetworks, allowLoopback)" });
    return;
  }
  if (value.allowedHosts !== undefined) stringArray(value.allowedHosts, `${pointer}/allowedHosts`, issues);
  for (const key of OUTBOUND_FLAGS) {
    if (value[key] !== undefined && typeof value[key] !== "boolean")
      issues.push({ pointer: `${pointer}/${key}`, message: "must be a boolean" });
  }
  for (const key of Object.keys(value)) {
    if (key !== "allowedHosts" && !OUTBOUND_FLAGS.includes(key))
      issues.push({ pointer: `${pointer}/${pointerSegment(key)}`, message: "unknown field" });
  }
}

/** Checks one server entry. Returns hard issues; unknown fields go to `warnings`. */
export function validateServerEntry(entry: unknown, pointer: string, warnings: string[] = []): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (!isRecord(entry)) return [{ pointer, message: "server entry must be an object" }];
  const hasCommand = entry.command !== undefined;
  const hasUrl = entry.url !== undefined;
  if (entry.type !== undefined && !SERVER_TYPES.includes(entry.type as string)) {
    issues.push({
      pointer: `${pointer}/type`,
      message: `unknown type ${JSON.stringify(entry.type)} (expected ${SERVER_TYPES.join(", ")})`,
    });
  }
  if (hasCommand && hasUrl) issues.push({ pointer, message: "has both command and url; a server is either stdio or HTTP" });
  if (!hasCommand && !hasUrl) issues.push({ pointer, message: "needs either command (stdio) or url (HTTP)" });
  if (entry.type === "stdio" && hasUrl) issues.push({ pointer: `${pointer}/url`, message: "type stdio takes command, not url" });
  if (entry.type !== undefined && entry.type !== "stdio" && SERVER_TYPES.includes(entry.type as string) && hasCommand) {
    issues.push({ pointer: `${pointer}/command`, message: `type ${entry.type} takes url, not command` });
  }
  if (hasCommand && (typeof entry.command !== "string" || entry.command === "")) {
    issues.push({ pointer: `${pointer}/command`, message: "must be a non-empty string" });
  }
  if (hasUrl) {
    // The URL may start with a `${VAR}` reference, which expands only later: here only its start is checked.
    if (typeof entry.url !== "string" || entry.url === "")
      issues.push({ pointer: `${pointer}/url`, message: "must be a non-empty string" });
    else if (!/^(https?:\/\/|\$\{)/.test(entry.url))
      issues.push({ pointer: `${pointer}/url`, message: "must be an http:// or https:// URL" });
  }
  if (entry.args !== undefined) stringArray(entry.args, `${pointer}/args`, issues);
  if (entry.env !== undefined) stringMap(entry.env, `${pointer}/env`, issues);
  if (entry.headers !== undefined) {
    stringMap(entry.headers, `${pointer}/headers`, issues);
    // HTTP stacks drop or reinterpret these names; refuse them rather than send something else.
    if (isRecord(entry.headers))
      for (const name of Object.keys(entry.headers))
        if (UNSENDABLE_HEADERS.has(name.toLowerCase()))
          issues.push({
            pointer: `${pointer}/headers/${pointerSegment(name)}`,
            message: `header name ${JSON.stringify(name)} cannot be sent`,
          });
  }
  if (entry.outbound !== undefined) outbound(entry.outbound, `${pointer}/outbound`, issues);
  if (entry.cwd !== undefined && typeof entry.cwd !== "string") issues.push({ pointer: `${pointer}/cwd`, message: "must be a string" });
  for (const key of ["enabled", "disabled", "autoStart", "trusted"]) {
    if (entry[key] !== undefined && typeof entry[key] !== "boolean")
      issues.push({ pointer: `${pointer}/${key}`, message: "must be a boolean" });
  }
  if (entry.era !== undefined && !eras().includes(entry.era as string)) {
    issues.push({ pointer: `${pointer}/era`, message: `must be one of ${eras().join(", ")}` });
  }
  for (const key of ["connectTimeoutMs", "requestTimeoutMs", "probeTimeoutMs"]) {
    if (entry[key] !== undefined) positiveInt(entry[key], `${pointer}/${key}`, issues);
  }
  for (const key of ["allowTools", "denyTools"]) if (entry[key] !== undefined) stringArray(entry[key], `${pointer}/${key}`, issues);
  // Every problem is collected, not just the first: one pass over a file names all its mistakes.
  if (entry.lifecycle !== undefined && entry.lifecycle !== "keep-alive") {
    if (!isRecord(entry.lifecycle) || entry.lifecycle.idleTimeoutMs === undefined) {
      issues.push({ pointer: `${pointer}/lifecycle`, message: 'must be "keep-alive" or { "idleTimeoutMs": <ms> }' });
    } else positiveInt(entry.lifecycle.idleTimeoutMs, `${pointer}/lifecycle/idleTimeoutMs`, issues);
  }
  if (entry.autoApprove !== undefined && typeof entry.autoApprove !== "boolean") {
    stringArray(entry.autoApprove, `${pointer}/autoApprove`, issues);
  }
  if (entry.collisionPolicy !== undefined && !POLICIES.includes(entry.collisionPolicy as string)) {
    issues.push({ pointer: `${pointer}/collisionPolicy`, message: `must be one of ${POLICIES.join(", ")}` });
  }
  if (entry.limits !== undefined) limits(entry.limits, `${pointer}/limits`, issues, warnings);
  for (const key of Object.keys(entry)) {
    if (!KNOWN_FIELDS.has(key)) warnings.push(`${pointer}/${pointerSegment(key)}: unknown field ignored`);
  }
  return issues;
}

/** Checks a whole file's parsed value. */
export function validateConfigFile(value: unknown, warnings: string[] = []): ConfigIssue[] {
  if (!isRecord(value)) return [{ pointer: "", message: "the file must hold a JSON object" }];
  const issues: ConfigIssue[] = [];
  if (value.collisionPolicy !== undefined && !POLICIES.includes(value.collisionPolicy as string)) {
    issues.push({ pointer: "/collisionPolicy", message: `must be one of ${POLICIES.join(", ")}` });
  }
  if (value.mcpServers === undefined) return issues;
  if (!isRecord(value.mcpServers)) return [...issues, { pointer: "/mcpServers", message: "must be an object mapping names to servers" }];
  for (const [name, entry] of Object.entries(value.mcpServers)) {
    const pointer = `/mcpServers/${pointerSegment(name)}`;
    // Tool ids are `server.tool`, split at the first dot: a dot in a server name would misroute calls.
    if (name === "" || name.includes(".")) issues.push({ pointer, message: "server names must be non-empty and contain no dot" });
    issues.push(...validateServerEntry(entry, pointer, warnings));
  }
  return issues;
}

/** The raw entry type after validation succeeded. */
export type ValidRawServer = RawServerConfig & { readonly disabled?: boolean; readonly description?: string };
