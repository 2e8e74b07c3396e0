/**
 * The conformance scenario client. The official harness runs it once per scenario with the server
 * URL as the last argument and MCP_CONFORMANCE_SCENARIO / _CONTEXT / _PROTOCOL_VERSION in the env.
 * It uses only the public API. Exit 0 on success, 1 on failure, 2 on an unknown scenario.
 */
import { appendFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { type AuthorizationResponse, createOAuthProvider, type OAuthProvider, requestIdJag } from "@toolwright/runtime/auth";
import type { CallResponse } from "@toolwright/runtime/caller";
import { createClientFeatures, type FormElicitation } from "@toolwright/runtime/client-features";
import { createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { MODERN_PROTOCOL_VERSION, type ToolDescriptor } from "@toolwright/runtime/protocol";

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}") as { [key: string]: unknown };
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const serverUrl = process.argv[process.argv.length - 1] ?? "";
const modern = version === MODERN_PROTOCOL_VERSION;
const log = (...parts: unknown[]) => process.stderr.write(`[toolwright-client] ${parts.map(String).join(" ")}\n`);

const CIMD_URL = "https://conformance-test.local/client-metadata.json";
const REDIRECT_URI = "http://localhost:3000/callback";

/**
 * A minimal fetch over node:http. Under the harness's parallel load the global fetch (undici) took
 * seconds per request to reach localhost; node:http (what the HTTP caller uses) does not.
 */
function nodeFetch(input: string, init: RequestInit = {}): Promise<Response> {
  const url = new URL(input);
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? "GET", headers: (init.headers ?? {}) as { [key: string]: string } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const headers = new Headers();
        for (const [key, value] of Object.entries(res.headers)) {
          if (typeof value === "string") headers.set(key, value);
          else if (Array.isArray(value)) for (const v of value) headers.append(key, v);
        }
        const status = res.statusCode ?? 500;
        const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
        resolve(new Response(body, { status, headers }));
      });
    });
    req.on("error", reject);
    if (typeof init.body === "string") req.write(init.body);
    req.end();
  });
}

/** nodeFetch with the elapsed time logged to stderr (the harness keeps it per scenario). */
async function timedFetch(input: string, init?: RequestInit): Promise<Response> {
  const started = performance.now();
  try {
    return await nodeFetch(input, init);
  } finally {
    log(`fetch ${init?.method ?? "GET"} ${input.split("?")[0]} ${Math.round(performance.now() - started)} ms`);
  }
}

/** Follows the mock AS's authorization redirect without contacting the redirect URI. */
async function authorizeByRedirect(url: string): Promise<AuthorizationResponse> {
  const response = await timedFetch(url); // nodeFetch never follows redirects
  const location = response.headers.get("location");
  if (!location) throw new Error(`authorization endpoint answered ${response.status} without a redirect`);
  const params = new URL(location, url).searchParams;
  const code = params.get("code");
  if (!code) throw new Error("redirect carries no code");
  const state = params.get("state");
  const iss = params.get("iss");
  return { code, ...(state !== null ? { state } : {}), ...(iss !== null ? { iss } : {}) };
}

/** A form answer: schema defaults are applied by the runtime; other fields get plain values. */
function answerForm(request: FormElicitation) {
  log("elicitation:", JSON.stringify(request).slice(0, 300));
  const content: { [key: string]: string | number | boolean } = {};
  for (const [field, schema] of Object.entries(request.requestedSchema.properties)) {
    if (schema.default !== undefined) continue;
    if (schema.type === "boolean") content[field] = true;
    else if (schema.type === "number" || schema.type === "integer") content[field] = 1;
    else if (schema.type === "string") content[field] = Array.isArray(schema.enum) ? String(schema.enum[0]) : "conformance";
  }
  return { action: "accept" as const, content };
}

function oauth(): OAuthProvider | undefined {
  if (!scenario.startsWith("auth/")) return undefined;
  const base = { serverUrl, fetch: timedFetch, onError: (e: Error) => log("oauth:", e.message) };
  if (scenario.startsWith("auth/client-credentials")) {
    return createOAuthProvider({
      ...base,
      grant: "client_credentials",
      clientId: String(context.client_id ?? ""),
      ...(typeof context.client_secret === "string" ? { clientSecret: context.client_secret } : {}),
      ...(typeof context.private_key_pem === "string" ? { privateKeyPem: context.private_key_pem } : {}),
      ...(typeof context.signing_algorithm === "string" ? { signingAlgorithm: context.signing_algorithm } : {}),
    });
  }
  if (typeof context.idp_token_endpoint === "string" && typeof context.idp_id_token === "string") {
    // Enterprise-managed authorization (SEP-990): ID token -> ID-JAG at the IdP -> JWT-bearer grant.
    const idp = { tokenEndpoint: context.idp_token_endpoint, idToken: context.idp_id_token, clientId: String(context.idp_client_id ?? "") };
    return createOAuthProvider({
      ...base,
      grant: "jwt_bearer",
      clientId: String(context.client_id ?? ""),
      ...(typeof context.client_secret === "string" ? { clientSecret: context.client_secret } : {}),
      assertion: ({ issuer, resource, scope }) =>
        requestIdJag({ ...idp, audience: issuer, resource, ...(scope ? { scope } : {}), fetch: timedFetch }),
    });
  }
  if (typeof context.valid_jwt === "string") {
    // Workload identity federation (SEP-1933): a JWT from the platform, presented as-is.
    return createOAuthProvider({ ...base, grant: "jwt_bearer", clientId: String(context.client_id ?? ""), assertion: context.valid_jwt });
  }
  const preRegistered = typeof context.client_id === "string";
  return createOAuthProvider({
    ...base,
    redirectUri: REDIRECT_URI,
    authorizationHandler: authorizeByRedirect,
    clientMetadata: { clientName: "toolwright-conformance", applicationType: "native" },
    ...(preRegistered ? { clientId: context.client_id as string } : { clientMetadataUrl: CIMD_URL }),
    ...(typeof context.client_secret === "string" ? { clientSecret: context.client_secret } : {}),
    ...(version ? { protocolVersion: version } : {}),
  });
}

function connectCaller(): HttpCaller {
  const features = createClientFeatures({
    elicitation: { form: answerForm, url: () => ({ action: "decline" }) },
    onLog: (entry) => log("server log:", entry.level, JSON.stringify(entry.data)),
  });
  const auth = oauth();
  return createHttpCaller({
    url: serverUrl,
    name: "conformance",
    era: modern ? "2026-07-28" : "legacy",
    ...(version ? { protocolVersion: version } : {}),
    clientInfo: { name: "toolwright-conformance", version: "0.1.0" },
    capabilities: features.capabilities,
    handlers: features.handlers,
    onNotification: (n) => {
      features.onNotification(n);
    },
    onWarning: (message) => log("warning:", message),
    notificationStream: !modern,
    // The harness spawns every scenario's client at once and can lag for seconds; it kills us at 30 s.
    connectTimeoutMs: 27_000,
    timeoutMs: 27_000,
    ...(auth ? { auth } : {}),
  });
}

function must(response: CallResponse, what: string): void {
  if (!response.ok) throw new Error(`${what} failed: ${response.failure.kind}: ${response.failure.message}`);
  if (response.value.isError) log(`${what} returned isError`);
}

async function listTools(caller: HttpCaller): Promise<readonly ToolDescriptor[]> {
  const listed = await caller.listTools();
  if (!listed.ok) throw new Error(`tools/list failed: ${listed.failure.kind}: ${listed.failure.message}`);
  return listed.value;
}

type Run = (caller: HttpCaller) => Promise<void>;

const runs: { readonly [name: string]: Run } = {
  async initialize(caller) {
    const handshake = await caller.connect();
    if (!handshake.ok) throw new Error(`connect failed: ${handshake.failure.message}`);
    await listTools(caller);
  },
  async tools_call(caller) {
    const tools = await listTools(caller);
    const name = tools.find((t) => t.name === "add_numbers")?.name ?? "add_numbers";
    must(await caller.callTool({ name, arguments: { a: 2, b: 3 } }), name);
  },
  async "elicitation-sep1034-client-defaults"(caller) {
    await listTools(caller);
    must(await caller.callTool({ name: "test_client_elicitation_defaults", arguments: {} }), "test_client_elicitation_defaults");
  },
  async "sse-retry"(caller) {
    await listTools(caller);
    must(await caller.callTool({ name: "test_reconnection", arguments: {} }, { timeoutMs: 10_000 }), "test_reconnection");
  },
  async "request-metadata"(caller) {
    await listTools(caller);
  },
  async "json-schema-ref-no-deref"(caller) {
    await listTools(caller);
  },
  async "json-schema-2020-12-preservation"(caller) {
    const tools = await listTools(caller);
    const focal = tools.find((t) => t.name === "json_schema_2020_12_tool");
    if (!focal) throw new Error("json_schema_2020_12_tool not listed");
    must(await caller.callTool({ name: "json_schema_echo", arguments: { schema: focal.inputSchema } }), "json_schema_echo");
  },
  async "sep-2322-client-request-state"(caller) {
    await listTools(caller);
    const [echo, unrelated] = await Promise.all([
      caller.callTool({ name: "test_mrtr_echo_state", arguments: {} }),
      caller.callTool({ name: "test_mrtr_unrelated", arguments: {} }),
    ]);
    must(echo, "test_mrtr_echo_state");
    must(unrelated, "test_mrtr_unrelated");
    must(await caller.callTool({ name: "test_mrtr_no_state", arguments: {} }), "test_mrtr_no_state");
    must(await caller.callTool({ name: "test_mrtr_no_result_type", arguments: {} }), "test_mrtr_no_result_type");
  },
  async "http-standard-headers"(caller) {
    const tools = await listTools(caller);
    for (const tool of tools) must(await caller.callTool({ name: tool.name, arguments: {} }), tool.name);
  },
  // Skills (SEP-2640): listing reads no file; loading verifies size, digest and frontmatter first.
  async "sep-2640-client-no-prefetch"(caller) {
    const listed = await caller.listSkills();
    if (!listed.ok) throw new Error(`skills/list failed: ${listed.failure.kind}: ${listed.failure.message}`);
    log(`listed ${listed.value.length} skill(s); none loaded, so no file is read`);
  },
  "sep-2640-client-verify-digest": loadFirstSkill,
  "sep-2640-client-verify-size": loadFirstSkill,
  "sep-2640-client-verify-frontmatter": loadFirstSkill,
  async "http-invalid-tool-headers"(caller) {
    const tools = await listTools(caller);
    for (const tool of tools) {
      const args = tool.name === "valid_tool" ? { region: "us-west1" } : {};
      must(await caller.callTool({ name: tool.name, arguments: args }), tool.name);
    }
  },
};

/**
 * A host's skill path (SEP-2640): list the skills (no file is read), load the first one through
 * the verifying loader, and only if it loads act on it by reading its other files. A refused skill
 * is the correct outcome for a tampered one, so it ends the scenario without an error.
 */
async function loadFirstSkill(caller: HttpCaller): Promise<void> {
  const listed = await caller.listSkills();
  if (!listed.ok) throw new Error(`skills/list failed: ${listed.failure.kind}: ${listed.failure.message}`);
  const entry = listed.value[0];
  if (!entry) throw new Error("the server listed no skills");
  const loaded = await caller.loadSkill(entry);
  if (!loaded.ok) {
    log(`refused skill ${entry.uri}: ${loaded.failure.message}`);
    return;
  }
  const files = loaded.value.entry.resources === "dynamic" ? [] : loaded.value.entry.resources.filter((r) => r.uri !== entry.uri);
  for (const file of files) {
    const read = await loaded.value.readFile(file.uri);
    if (!read.ok) throw new Error(`reading ${file.uri} failed: ${read.failure.message}`);
  }
}

/** Scenarios driven by `context.toolCalls` (http-custom-headers and friends). */
async function runContextCalls(caller: HttpCaller): Promise<void> {
  await listTools(caller);
  const calls = (context.toolCalls ?? []) as { name: string; arguments: { [key: string]: unknown } }[];
  for (const call of calls) must(await caller.callTool({ name: call.name, arguments: call.arguments }), call.name);
}

/** Authorization-code scenarios: list tools, then call test-tool (each may hit 401/403 first). */
async function runAuth(caller: HttpCaller): Promise<void> {
  await listTools(caller);
  must(await caller.callTool({ name: "test-tool", arguments: {} }), "test-tool");
}

function pick(): Run | undefined {
  if (Object.hasOwn(runs, scenario)) return runs[scenario];
  if (Array.isArray(context.toolCalls)) return runContextCalls;
  if (scenario.startsWith("auth/client-credentials")) return async (caller) => void (await listTools(caller));
  if (scenario.startsWith("auth/")) return runAuth;
  return undefined;
}

async function main(): Promise<number> {
  log(`scenario=${scenario} version=${version ?? "(none)"} context=${Object.keys(context).join(",") || "(none)"}`);
  const run = pick();
  if (!run) {
    log(`unknown scenario ${JSON.stringify(scenario)}`);
    return 2;
  }
  const caller = connectCaller();
  try {
    await run(caller);
    return 0;
  } catch (error) {
    log(`scenario ${scenario} failed: ${(error as Error).message}`);
    return 1;
  } finally {
    await caller.close();
  }
}

/** Exits, first telling the strict runner (run.ts) the exit code: the harness's suite summary leaves it out. */
function exit(code: number): never {
  const dir = process.env.TOOLWRIGHT_CONFORMANCE_EXITS;
  if (dir) appendFileSync(join(dir, encodeURIComponent(scenario)), `${code}\n`);
  process.exit(code);
}

main().then(exit, (error: unknown) => {
  log("crashed:", error instanceof Error ? (error.stack ?? error.message) : String(error));
  exit(1);
});
