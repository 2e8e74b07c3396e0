/**
 * Names that are valid JavaScript but poison an object's contract (`then`, `toJSON`, `valueOf`,
 * `constructor`, `__proto__`, ...), through the product: `toolwright gen` (the built CLI, in a child)
 * for a design and for a pulled catalogue, then the generated modules imported and used with a real
 * stdio caller against the scripted server, whose wire log shows every `tools/call` that was sent.
 * Also: pulled tools whose names sanitize to one identifier (`a.b`, `a-b`, `aB`) generate, with
 * stable hash suffixes independent of the order, while a design the user wrote is refused.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { inspect } from "node:util";
import type { Caller, ToolSpec } from "@toolwright/runtime";
import { createHttpCaller } from "@toolwright/runtime/http";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESERVED_MEMBERS } from "../../packages/codegen/src/emit/names.js";
import { type ScriptedServer, scriptedServer } from "../support/scripted-stdio-server.js";
import { runToolwright } from "../support/toolwright-cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
// Inside the repo so generated code resolves @toolwright/* like a user's project.
const root = join(repo, ".tmp", `member-names-${process.pid}`);

const toolwright = (...argv: string[]) => runToolwright(argv, { cwd: root });

/** Every name the generator reserves as a member, plus symbol-ish spellings. */
const POISON = [...RESERVED_MEMBERS, "Symbol.iterator", "@@asyncIterator"];

const servers: ScriptedServer[] = [];
const callers: Caller[] = [];

function stdioCaller(env: readonly string[] = []): { caller: Caller; server: ScriptedServer } {
  const server = scriptedServer({ env });
  servers.push(server);
  const caller = createStdioCaller({ command: server.command, args: [...server.args], env: [...server.env] });
  callers.push(caller);
  return { caller, server };
}

const calledNames = (server: ScriptedServer) => server.received("tools/call").map((e) => e.msg?.params?.name);

async function load<T>(path: string): Promise<T> {
  return (await import(pathToFileURL(join(root, path)).href)) as T;
}

beforeAll(() => {
  mkdirSync(root, { recursive: true });
});

afterAll(async () => {
  await Promise.all(callers.map((c) => c.close?.()));
  for (const s of servers) s.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe("names that poison an object's contract, in a design", () => {
  type Client = { readonly [member: string]: (payload: object) => Promise<{ ok: boolean }> };
  let mod: {
    createThenClient(caller: Caller): Client;
    thenRequests: { readonly [member: string]: (payload: object) => { tool: string; arguments: object } };
    thenSpecMap: { readonly [name: string]: ToolSpec };
    thenSpecs: readonly ToolSpec[];
    findThenSpecByName(name: string): ToolSpec | undefined;
  };

  beforeAll(async () => {
    writeFileSync(
      join(root, "poison.design.ts"),
      `import { agent, design, fromExternalMCP, mcpServer, object, string, toolset } from "@toolwright/dsl";
const names: string[] = ${JSON.stringify(POISON)};
const then = toolset("then", fromExternalMCP("then"), (t) => {
  for (const name of names) t.tool(name, { input: object({ note: string().describe("a note").optional() }) });
  t.tool("echo", { input: object({}, { closed: false }) });
});
const server = mcpServer("then-server", { version: "1.0.0" }, (t) => {
  t.tool("then", { input: object({}) });
  t.tool("toString", { input: object({}) });
});
export default design({ toolsets: [then], agents: [agent("bot", { use: [then] })], servers: [server] });
`,
    );
    const run = await toolwright("gen", "poison.design.ts", "--out", "poison-out", "--no-cache");
    expect(run.output).toMatch(new RegExp(`1 toolset, ${POISON.length + 1} tools`));
    expect(run.status).toBe(0);
    mod = await load("poison-out/then/index.ts");
  }, 180_000);

  it("the client is not thenable, serializes, coerces and inspects without calling a tool", async () => {
    const { caller, server } = stdioCaller();
    const client = mod.createThenClient(caller);
    expect("then" in client).toBe(false);
    expect(await Promise.resolve(client)).toBe(client);
    const awaited = await (async () => client)();
    expect(awaited).toBe(client);
    expect(JSON.stringify(client)).toBe("{}");
    expect(String(client)).toBe("[object Object]");
    expect(`${client}`).toBe("[object Object]");
    expect(Object.hasOwn(client, "then_")).toBe(true);
    expect(client.constructor).toBe(Object);
    expect(inspect(client)).toMatch(/then_/);
    expect(client).toEqual(client); // vitest's equality probes asymmetricMatch
    // Nothing above reached the server.
    expect(calledNames(server)).toEqual([]);
    // The renamed members call the tools under their real wire names.
    for (const member of ["then_", "toJson", "valueOf_", "constructor_", "inspect_", "asymmetricMatch_", "toLocaleString_", "proto"]) {
      expect(typeof client[member], member).toBe("function");
      await client[member]!({});
    }
    expect(calledNames(server)).toEqual([
      "then",
      "toJSON",
      "valueOf",
      "constructor",
      "inspect",
      "asymmetricMatch",
      "toLocaleString",
      "__proto__",
    ]);
  });

  it("request builders are not thenable either and build requests for the real tool ids", async () => {
    expect(await Promise.resolve(mod.thenRequests)).toBe(mod.thenRequests);
    expect(JSON.stringify(mod.thenRequests)).toBe("{}");
    expect(mod.thenRequests.then_!({})).toEqual({ tool: "then.then", arguments: {} });
    expect(mod.thenRequests.toJson!({})).toEqual({ tool: "then.toJSON", arguments: {} });
  });

  it("spec maps and field descriptions have no prototype; a __proto__ key is an ordinary entry", async () => {
    const map = mod.thenSpecMap;
    expect(Object.getPrototypeOf(map)).toBeNull();
    expect(Object.keys(map)).toEqual([...POISON, "echo"]);
    const protoKey = "__proto__";
    expect(map[protoKey]?.name).toBe("__proto__");
    expect(map.constructor?.name).toBe("constructor");
    expect(map.then?.name).toBe("then");
    expect(await Promise.resolve(map)).toBe(map);
    expect(JSON.parse(JSON.stringify(map)).toJSON.name).toBe("toJSON");
    const echo = mod.findThenSpecByName("echo")!;
    expect(echo.fieldDescriptions).toBeUndefined();
    const withNote = mod.findThenSpecByName("then")!;
    expect(Object.getPrototypeOf(withNote.fieldDescriptions)).toBeNull();
    expect(withNote.fieldDescriptions?.constructor).toBeUndefined();
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) expect(mod.findThenSpecByName(name)?.name).toBe(name);
    expect(mod.findThenSpecByName("valueOf_")).toBeUndefined();
  });

  it("an agent's callers use the member name then_, and its tool map has no prototype", async () => {
    const agents = await load<{
      botTools: { readonly [toolset: string]: readonly ToolSpec[] };
      createBotRuntime(callers: { readonly then_: Caller }): {
        execute(request: { tool: string; arguments: object }): Promise<{ ok: boolean }>;
      };
    }>("poison-out/agents/index.ts");
    expect(Object.getPrototypeOf(agents.botTools)).toBeNull();
    expect(Object.keys(agents.botTools)).toEqual(["then"]);
    const { caller, server } = stdioCaller();
    const runtime = agents.createBotRuntime({ then_: caller });
    await runtime.execute(mod.thenRequests.then_!({}));
    expect(calledNames(server)).toEqual(["then"]);
  });

  it("a generated server takes handlers named then_ and toString_, so a handlers object stays a plain object", async () => {
    const scaffold = await load<{
      serveThenServer(handlers: object, options: object): Promise<{ url: string; close(): Promise<void> }>;
    }>("poison-out/servers/then-server/index.ts");
    const handlers = { then_: () => "then ran", toString_: () => "toString ran" };
    expect(await Promise.resolve(handlers)).toBe(handlers);
    const handle = await scaffold.serveThenServer(handlers, { transport: "http", port: 0, host: "127.0.0.1" });
    const caller = createHttpCaller({ url: handle.url });
    try {
      const a = await caller.callTool({ name: "then", arguments: {} });
      const b = await caller.callTool({ name: "toString", arguments: {} });
      expect(JSON.stringify(a)).toMatch(/then ran/);
      expect(JSON.stringify(b)).toMatch(/toString ran/);
    } finally {
      await caller.close?.();
      await handle.close();
    }
  });
});

describe("pulled catalogues the user cannot rename", () => {
  const LISTED = ["a.b", "a-b", "aB", "a_b", "then", "then_", "toJSON"];

  async function pullAndGen(name: string, order: readonly string[]) {
    const list = order.map((n) => ({ name: n, inputSchema: { type: "object" } }));
    const server = scriptedServer({ env: [`SCRIPTED_LIST=${JSON.stringify(list)}`] });
    servers.push(server);
    writeFileSync(
      join(root, `${name}.design.ts`),
      `import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";
const srv = externalServer("srv", { command: ${JSON.stringify(server.command)}, args: ${JSON.stringify(server.args)}, env: ${JSON.stringify(server.env)} });
export default design({ toolsets: [toolset("srv", fromMCP(srv))] });
`,
    );
    const pulled = await toolwright("pull", `${name}.design.ts`);
    expect(pulled.status, pulled.output).toBe(0);
    const gen = await toolwright("gen", `${name}.design.ts`, "--out", `${name}-out`, "--no-cache");
    expect(gen.status, gen.output).toBe(0);
    const mod = await load<{
      createSrvClient(caller: Caller): { readonly [member: string]: (payload: object) => Promise<unknown> };
      srvSpecs: readonly ToolSpec[];
    }>(`${name}-out/srv/index.ts`);
    const client = mod.createSrvClient(stdioCaller().caller);
    return { mod, members: Object.keys(client).sort(), server };
  }

  it("generates (instead of refusing), keeps exact names, hashes the rest, and does not depend on the order", async () => {
    const forward = await pullAndGen("pulled-fwd", LISTED);
    const backward = await pullAndGen("pulled-bwd", [...LISTED].reverse());
    expect(backward.members).toEqual(forward.members);
    const providers = (specs: readonly ToolSpec[]) => Object.fromEntries(specs.map((s) => [s.name, s.providerName]));
    expect(providers(backward.mod.srvSpecs)).toEqual(providers(forward.mod.srvSpecs));
    const members = forward.members;
    expect(members).toContain("aB");
    expect(members).toContain("then_");
    expect(members).toContain("toJson");
    expect(members.filter((m) => /^aB_[0-9a-f]{6}$/.test(m))).toHaveLength(3);
    expect(members.filter((m) => /^then_[0-9a-f]{6}$/.test(m))).toHaveLength(1);
    expect(members).toHaveLength(LISTED.length);
    // The real a_b owns the provider name srv_a_b; a.b, which maps onto it, gets a hash.
    const p = providers(forward.mod.srvSpecs);
    expect(p.a_b).toBe("srv_a_b");
    expect(p["a.b"]).toMatch(/^srv_a_b_[0-9a-f]{8}$/);
    expect(p["a-b"]).toBe("srv_a-b");
    expect(p.aB).toBe("srv_aB");
    expect(new Set(Object.values(p)).size).toBe(LISTED.length);
  }, 240_000);

  it("each disambiguated member calls its own tool", async () => {
    const { mod } = await pullAndGen("pulled-call", LISTED);
    const { caller, server } = stdioCaller();
    const client = mod.createSrvClient(caller);
    const text = readFileSync(join(root, "pulled-call-out", "srv", "client.gen.ts"), "utf8");
    // The generated client wires each member to one spec; call all of them and compare with the wire.
    const wired = [...text.matchAll(/^ {4}(\w+): \(payload, options\) => invokeTool\(caller, (\w+), /gm)].map((m) => [m[1]!, m[2]!]);
    expect(wired).toHaveLength(LISTED.length);
    const specs = await load<{ readonly [spec: string]: ToolSpec }>("pulled-call-out/srv/specs.gen.ts");
    for (const [member] of wired) await client[member]!({});
    expect(calledNames(server)).toEqual(wired.map(([, spec]) => specs[spec]!.name));
    expect(new Set(calledNames(server))).toEqual(new Set(LISTED));
  }, 240_000);

  it("both outputs compile under the strictest tsc options", () => {
    writeFileSync(
      join(root, "tsconfig.json"),
      JSON.stringify({ extends: "../../test/typecheck/tsconfig.strict.json", include: ["poison-out/**/*.ts", "pulled-fwd-out/**/*.ts"] }),
    );
    const tsc = spawnSync(join(repo, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "tsconfig.json"], {
      cwd: root,
      encoding: "utf8",
      timeout: 150_000,
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  }, 180_000);

  it("a design the user wrote with a.b and a-b is refused with 'rename one'", async () => {
    writeFileSync(
      join(root, "inline-clash.design.ts"),
      `import { design, fromExternalMCP, object, toolset } from "@toolwright/dsl";
export default design({ toolsets: [toolset("s", fromExternalMCP("s"), (t) => { t.tool("a.b", { input: object({}) }); t.tool("a-b", { input: object({}) }); })] });
`,
    );
    const run = await toolwright("gen", "inline-clash.design.ts", "--out", "inline-clash-out");
    expect(run.status).toBe(2);
    expect(run.output).toMatch(
      /inline-clash\.design\.ts toolset "s" tool "a-b": its identifier "aB" collides with tool "a\.b" after sanitizing; rename one/,
    );
  }, 120_000);
});
