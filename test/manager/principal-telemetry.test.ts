/**
 * The opt-in principal pseudonym in telemetry, over the manager with two principals against real
 * servers (a bearer-checking Streamable HTTP server per principal, a shared stdio server): every
 * span and event of a principal's calls carries `toolwright.principal.hash`, the same value for one
 * principal and another for the other; the raw id appears in no span, event, failure or log line;
 * without the option no principal attribute is added at all.
 */
import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryTokenStore, type TokenStore } from "../../packages/runtime/src/auth.js";
import type { Principal } from "../../packages/runtime/src/caller.js";
import type { RuntimeEvent, SpanLike, TracerLike } from "../../packages/runtime/src/index.js";
import { createMcpManager, type McpManager, parseMcpConfig } from "../../packages/runtime/src/manager.js";
import { type BearerServer, startBearerServer } from "./fixtures/bearer-server.js";
import { DYNAMIC, NODE } from "./helpers.js";

const alice: Principal = { id: "alice@example.com", label: "Alice" };
const bob: Principal = { id: "bob@example.com", label: "Bob" };
const TOKENS = new Map([
  ["tok-alice-7f3a", alice.id],
  ["tok-bob-91c2", bob.id],
]);
const KEY = "the-application-telemetry-key-32b";
const PRINCIPAL_HASH_ATTRIBUTE = "toolwright.principal.hash";

let server: BearerServer;
let manager: McpManager | undefined;
beforeAll(async () => {
  server = await startBearerServer(TOKENS);
});
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});
afterAll(async () => {
  await server.close();
});

interface RecordedSpan {
  readonly name: string;
  readonly attributes: { [key: string]: unknown };
  status?: { code: number; message?: string };
}

/** A tracer that keeps what the runtime told it (what an OpenTelemetry exporter would receive). */
function recordingTracer(): { tracer: TracerLike; spans: RecordedSpan[] } {
  const spans: RecordedSpan[] = [];
  const tracer: TracerLike = {
    startSpan(name, options) {
      const span: RecordedSpan = { name, attributes: { ...options?.attributes } };
      spans.push(span);
      const handle: SpanLike = {
        setAttribute: (key, value) => {
          span.attributes[key] = value;
        },
        setStatus: (status) => {
          span.status = status;
        },
        end: () => undefined,
      };
      return handle;
    },
  };
  return { tracer, spans };
}

/** Captures everything written to stdout, stderr and the console while `run` runs. */
async function capturingLogs<T>(run: () => Promise<T>): Promise<{ value: T; logs: string }> {
  let logs = "";
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const methods = ["log", "info", "warn", "error", "debug"] as const;
  const saved = methods.map((m) => console[m]);
  process.stdout.write = ((chunk: unknown, ...rest: never[]) => {
    logs += String(chunk);
    return out(chunk as string, ...rest);
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown, ...rest: never[]) => {
    logs += String(chunk);
    return err(chunk as string, ...rest);
  }) as typeof process.stderr.write;
  for (const m of methods)
    console[m] = (...args: unknown[]) => {
      logs += `${args.map(String).join(" ")}\n`;
    };
  try {
    return { value: await run(), logs };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    methods.forEach((m, i) => {
      console[m] = saved[i] as (typeof console)[typeof m];
    });
  }
}

function storesFor(url: string): (p: Principal) => TokenStore {
  const stores = new Map<string, TokenStore>();
  return (p) => {
    let store = stores.get(p.id);
    if (!store) {
      store = createMemoryTokenStore();
      const token = [...TOKENS].find(([, user]) => user === p.id)?.[0];
      if (token) void store.saveTokens(url, { accessToken: token, tokenType: "Bearer", issuer: "https://as.example" });
      stores.set(p.id, store);
    }
    return store;
  };
}

/** Two principals' calls through their runtimes: per-principal HTTP, a shared stdio server, a failing tool, an unknown tool. */
async function callsOfTwo(runtimeOptions: { readonly principalHash?: string }) {
  const { tracer, spans } = recordingTracer();
  const events: RuntimeEvent[] = [];
  const config = parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: server.url }, notes: { command: NODE, args: [DYNAMIC] } } }));
  manager = createMcpManager(config, {
    principals: {
      sharedServers: ["notes"],
      tokenStoreFor: storesFor(server.url),
      runtime: { tracer, onEvent: (e) => events.push(e), ...runtimeOptions },
    },
  });
  await manager.start(); // connects the shared server
  const [a, b] = await Promise.all([manager.forPrincipal(alice), manager.forPrincipal(bob)]);
  const { value: results, logs } = await capturingLogs(() =>
    Promise.all(
      [a, b].flatMap((m) => [
        m.runtime.execute({ tool: "crm.whoami", arguments: {} }),
        m.runtime.execute({ tool: "notes.alpha", arguments: {} }),
        m.runtime.execute({ tool: "notes.fail", arguments: {} }),
        m.runtime.execute({ tool: "crm.no-such-tool", arguments: {} }),
      ]),
    ),
  );
  return { spans, events, results, logs };
}

describe("the principal pseudonym in telemetry", () => {
  it("with a key: each principal's spans and events carry its own stable HMAC; no raw id anywhere", async () => {
    const { spans, events, results, logs } = await callsOfTwo({ principalHash: KEY });
    const expected = (p: Principal) => createHmac("sha256", KEY).update(p.id).digest("hex").slice(0, 16);
    // whoami and the shared alpha answer; notes.fail and the unknown tool fail, for each principal.
    expect(results.map((r) => r.ok)).toEqual([true, true, false, false, true, true, false, false]);
    expect(spans).toHaveLength(8);
    const hashes = spans.map((s) => s.attributes[PRINCIPAL_HASH_ATTRIBUTE]);
    // Calls are made in order alice x4, bob x4 (spans start in that order).
    expect(hashes).toEqual([...Array(4).fill(expected(alice)), ...Array(4).fill(expected(bob))]);
    expect(expected(alice)).not.toBe(expected(bob));
    expect(events).toHaveLength(16); // started + finished/failed per call
    expect(new Set(events.map((e) => e.principalHash))).toEqual(new Set([expected(alice), expected(bob)]));
    expect(events.filter((e) => e.principalHash === expected(alice))).toHaveLength(8);
    // whoami answers with the user the server saw (the id, by design of the test server): that
    // answer is the tool's result, not telemetry. Everything else must not hold an id.
    expect(results[0]?.ok && JSON.stringify(results[0].value)).toContain(alice.id);
    const failures = results.filter((r) => !r.ok);
    const seen = { spans: JSON.stringify(spans), events: JSON.stringify(events), failures: JSON.stringify(failures), logs };
    for (const id of [alice.id, bob.id]) for (const text of Object.values(seen)) expect(text).not.toContain(id);
  });

  it("without the option: no principal attribute and no principalHash field at all", async () => {
    const { spans, events } = await callsOfTwo({});
    expect(spans).toHaveLength(8);
    for (const span of spans) expect(Object.keys(span.attributes).filter((k) => k.includes("principal"))).toEqual([]);
    expect(events).toHaveLength(16);
    for (const event of events) expect("principalHash" in event).toBe(false);
  });
});
