/**
 * The design's `outbound` policy reaches generated code: `gen` writes it into `create<Server>Caller`,
 * so a generated HTTP caller with `allowedHosts` refuses a redirect to another host. Two real HTTP
 * servers on 127.0.0.1: the declared one answers every request with a 307 to the other, named
 * `localhost`, which records what reaches it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../packages/codegen/src/cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
let dir = "";
const servers: Server[] = [];
let declaredUrl = "";
let otherOrigin = "";
let otherHits = 0;

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

interface CallerModule {
  createRedirectorCaller(overrides?: object): {
    listTools(): Promise<{ ok: true } | { ok: false; failure: { kind: string; message: string } }>;
    close(): Promise<void>;
  };
}

beforeAll(async () => {
  const otherPort = await listen((req, res) => {
    otherHits++;
    req.resume();
    res.writeHead(404).end();
  });
  otherOrigin = `http://localhost:${otherPort}`;
  const port = await listen((req, res) => {
    req.resume();
    res.writeHead(307, { location: `${otherOrigin}/mcp` }).end();
  });
  declaredUrl = `http://127.0.0.1:${port}/mcp`;
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "outbound-gen-"));
  writeFileSync(
    join(dir, "design.ts"),
    [
      'import { design, externalServer, fromExternalMCP, object, string, toolset } from "@toolwright/dsl";',
      `const redirector = externalServer("redirector", { url: ${JSON.stringify(declaredUrl)}, outbound: { allowedHosts: ["127.0.0.1"] } });`,
      'const ts = toolset("redirector", fromExternalMCP("redirector"), (t) => {',
      '  t.tool("echo", { input: object({ text: string() }) });',
      "});",
      "export default design({ toolsets: [ts], servers: [redirector] });",
      "",
    ].join("\n"),
  );
  const out: string[] = [];
  const code = await main(["gen", "design.ts", "--out", "src/gen"], { stdout: (t) => out.push(t), stderr: (t) => out.push(t), cwd: dir });
  if (code !== 0) throw new Error(`gen failed: ${out.join("\n")}`);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

describe("generated create<Server>Caller carries the design's outbound policy", () => {
  it("the policy is written into caller.gen.ts as data", () => {
    const text = readFileSync(join(dir, "src", "gen", "redirector", "caller.gen.ts"), "utf8");
    expect(text).toMatch(/outbound: \{\s*allowedHosts: \["127\.0\.0\.1"\],\s*\}/);
  });

  it("refuses the redirect to another host, which receives no request", async () => {
    const gen = (await import(pathToFileURL(join(dir, "src", "gen", "redirector", "caller.gen.ts")).href)) as CallerModule;
    // Follow redirects at all (the default refuses cross-origin ones anyway): only the policy stands in the way.
    const caller = gen.createRedirectorCaller({ redirect: "follow", era: "legacy", connectTimeoutMs: 10_000 });
    try {
      const listed = await caller.listTools();
      expect(listed.ok).toBe(false);
      if (!listed.ok) {
        expect(listed.failure.kind).toBe("unavailable");
        expect(listed.failure.message).toContain(`redirect refused: ${otherOrigin} is not in allowedHosts`);
      }
      expect(otherHits).toBe(0);
    } finally {
      await caller.close();
    }
  });

  it("control: with the policy overridden away, the same redirect is followed to the other host", async () => {
    const gen = (await import(pathToFileURL(join(dir, "src", "gen", "redirector", "caller.gen.ts")).href)) as CallerModule;
    const caller = gen.createRedirectorCaller({ redirect: "follow", era: "legacy", connectTimeoutMs: 10_000, outbound: {} });
    try {
      const listed = await caller.listTools();
      expect(listed.ok).toBe(false); // the other host answers 404
      expect(otherHits).toBeGreaterThan(0);
    } finally {
      await caller.close();
    }
  });
});
