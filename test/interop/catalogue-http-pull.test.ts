/**
 * `toolwright pull` over streamable HTTP against the real server-everything (127.0.0.1, free port):
 * the catalogue and every fingerprint equal the stdio pull committed in examples/catalogues, so the
 * lock does not depend on the transport.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "@toolwright/codegen";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const EVERYTHING = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");
const repo = fileURLToPath(new URL("../..", import.meta.url));
let child: ChildProcess | undefined;
let url = "";
let tmp = "";

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

beforeAll(async () => {
  const build = spawnSync(join(repo, "node_modules", ".bin", "tsc"), ["-b", "packages/dsl", "packages/runtime"], {
    cwd: repo,
    encoding: "utf8",
  });
  expect(build.status, build.stdout).toBe(0);
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  tmp = mkdtempSync(join(repo, ".tmp", "http-pull-"));
  const port = await freePort();
  const proc = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { PORT: String(port), PATH: process.env.PATH ?? "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child = proc;
  await new Promise<void>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${text}`)), 15_000);
    proc.stderr?.on("data", (d) => {
      text += String(d);
      if (/listening on port/i.test(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once("exit", (code) => reject(new Error(`server-everything exited ${code}: ${text}`)));
  });
  url = `http://127.0.0.1:${port}/mcp`;
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const gone = new Promise((r) => child?.once("exit", r));
    child.kill("SIGTERM");
    await gone;
  }
  rmSync(tmp, { recursive: true, force: true });
});

describe("toolwright pull over streamable HTTP (real server-everything)", () => {
  it("writes the same catalogue and fingerprints as the stdio pull", async () => {
    const design = join(tmp, "design.ts");
    writeFileSync(
      design,
      `import { design, externalServer } from "@toolwright/dsl";\nexport default design({ servers: [externalServer("everything", { url: ${JSON.stringify(url)} })] });\n`,
    );
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(["pull", design, "--json"], { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: repo });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const summary = JSON.parse(out.join(""));
    expect(summary.servers).toMatchObject([{ name: "everything", transport: "http", tools: 13 }]);
    const pulled = JSON.parse(readFileSync(join(tmp, "design.lock.json"), "utf8")).servers.everything;
    const committed = JSON.parse(readFileSync(join(repo, "examples/catalogues/design.lock.json"), "utf8")).servers.everything;
    expect(pulled.fingerprints).toEqual(committed.fingerprints);
    expect(pulled.fingerprint).toBe(committed.fingerprint);
    expect(pulled.tools).toEqual(committed.tools);
  });
});
