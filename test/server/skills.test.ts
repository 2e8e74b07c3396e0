// Skills over MCP (SEP-2640), Toolwright on both sides: createToolServer serves a skill; both
// callers (stdio: a spawned tsx process; HTTP on 127.0.0.1) list it without reading a file, load it
// through the verifying loader and read its files. A tampering HTTP intermediary (a real proxy that
// rewrites answers in flight) proves that a digest, size or frontmatter mismatch is refused and
// that nothing after the refusal is read.
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "../../packages/runtime/src/http.js";
import { type HttpServerHandle, serveHttp } from "../../packages/runtime/src/server.js";
import { createStdioCaller, type StdioCaller } from "../../packages/runtime/src/stdio.js";
import { createSkillsServer, FORMS_MD, SKILL_MD } from "./fixtures/skills-server.js";

const require = createRequire(import.meta.url);
const tsxCli = fileURLToPath(new URL("dist/cli.mjs", `file://${require.resolve("tsx/package.json")}`));
const script = fileURLToPath(new URL("./fixtures/serve-skills.ts", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));
const SKILL = "skill://pdf-processing/SKILL.md";
const FORMS = "skill://pdf-processing/references/FORMS.md";

let http: HttpServerHandle;
const callers: { [transport: string]: StdioCaller | HttpCaller } = {};

beforeAll(async () => {
  http = await serveHttp(createSkillsServer());
  clearHttpEraCache();
  callers.http = createHttpCaller({ url: http.url, name: "skills", era: "2026-07-28" });
  callers.stdio = createStdioCaller({
    name: "skills",
    command: process.execPath,
    args: [tsxCli, script],
    cwd: root,
    era: "2026-07-28",
    connectTimeoutMs: 20_000,
  });
});
afterAll(async () => {
  for (const caller of Object.values(callers)) await caller.close();
  await http.close();
});

describe.each(["stdio", "http"])("skills over %s (2026-07-28)", (transport) => {
  const caller = () => callers[transport] as StdioCaller | HttpCaller;

  it("lists the skill with its frontmatter and a digest manifest", async () => {
    const listed = await caller().listSkills();
    if (!listed.ok) throw new Error(listed.failure.message);
    expect(listed.value).toEqual([
      {
        uri: SKILL,
        frontmatter: { name: "pdf-processing", description: "Extract, fill, and assemble PDF documents", metadata: { version: "2.1.0" } },
        resources: [
          { uri: SKILL, digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: Buffer.byteLength(SKILL_MD) },
          { uri: FORMS, digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: Buffer.byteLength(FORMS_MD) },
        ],
      },
    ]);
  });

  it("lists SKILL.md among the resources with the frontmatter's name and description", async () => {
    const listed = await caller().listResources();
    expect(listed.ok && listed.value).toContainEqual({
      uri: SKILL,
      name: "pdf-processing",
      description: "Extract, fill, and assemble PDF documents",
      mimeType: "text/markdown",
    });
  });

  it("loads the skill verified, and reads a supporting file by its relative path", async () => {
    const loaded = await caller().loadSkill(SKILL); // by URI: confirmed with skills/get
    if (!loaded.ok) throw new Error(loaded.failure.message);
    expect(loaded.value.verified).toBe(true);
    expect(loaded.value.text).toBe(SKILL_MD);
    expect(loaded.value.body).toContain("Skill body.");
    const forms = await loaded.value.readFile("references/FORMS.md");
    expect(forms.ok && forms.value).toMatchObject({ uri: FORMS, text: FORMS_MD, mimeType: "text/markdown" });
  });

  it("refuses a file the held entry does not list, and an unknown skill", async () => {
    const loaded = await caller().loadSkill(SKILL);
    if (!loaded.ok) throw new Error(loaded.failure.message);
    const other = await loaded.value.readFile("../other-skill/SKILL.md");
    expect(other).toMatchObject({ ok: false, failure: { kind: "malformed_result" } });
    expect(!other.ok && other.failure.message).toMatch(/is not a file of skill/);
    const unknown = await caller().getSkill("skill://nope/SKILL.md");
    expect(unknown).toMatchObject({ ok: false, failure: { kind: "invalid_call", rpc: { code: -32602 } } });
  });
});

describe("a legacy (2025-11-25) session", () => {
  it("sees no skills extension, so listSkills fails without sending skills/list; the files stay readable", async () => {
    const legacy = createHttpCaller({ url: http.url, name: "skills", era: "legacy" });
    const listed = await legacy.listSkills();
    expect(listed).toMatchObject({ ok: false, failure: { kind: "invalid_call" } });
    expect(!listed.ok && listed.failure.message).toMatch(/does not declare the io.modelcontextprotocol\/skills extension/);
    const read = await legacy.readResource(SKILL);
    expect(read.ok && read.value[0]).toMatchObject({ uri: SKILL, text: SKILL_MD });
    await legacy.close();
  });
});

describe("a tampering intermediary", () => {
  let proxy: Server;
  let proxyUrl = "";
  let rewrite: (method: string, body: string) => string = (_m, b) => b;
  const reads: string[] = [];

  beforeAll(async () => {
    // Forwards each POST to the real server and lets the test rewrite the answer in flight.
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const method = String(req.headers["mcp-method"] ?? "");
        if (method === "resources/read") reads.push(JSON.parse(body).params.uri);
        const headers: { [key: string]: string } = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === "string" && k !== "host" && k !== "content-length") headers[k] = v;
        const upstream = await fetch(http.url, { method: req.method ?? "POST", headers, ...(req.method === "POST" ? { body } : {}) });
        const text = rewrite(method, await upstream.text());
        res.writeHead(upstream.status, { "Content-Type": upstream.headers.get("content-type") ?? "application/json" }).end(text);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

  /** Loads the skill through the proxy with `rewrite` applied; returns the result and the reads the proxy saw. */
  async function loadThrough(fn: typeof rewrite) {
    rewrite = fn;
    reads.length = 0;
    const caller = createHttpCaller({ url: proxyUrl, name: "tampered", era: "2026-07-28" });
    const listed = await caller.listSkills();
    if (!listed.ok) throw new Error(listed.failure.message);
    const entry = listed.value[0];
    if (!entry) throw new Error("no skill listed");
    const readsAfterList = reads.length;
    const loaded = await caller.loadSkill(entry);
    if (loaded.ok) await loaded.value.readFile("references/FORMS.md");
    await caller.close();
    return { loaded, readsAfterList, reads: [...reads] };
  }

  it("listing reads no file", async () => {
    const { readsAfterList } = await loadThrough((_m, b) => b);
    expect(readsAfterList).toBe(0);
  });

  it("an honest path loads and reads both files", async () => {
    const { loaded, reads: seen } = await loadThrough((_m, b) => b);
    expect(loaded.ok).toBe(true);
    expect(seen).toEqual([SKILL, FORMS]);
  });

  it.each([
    ["digest", (m: string, b: string) => (m === "resources/read" ? b.replace("Skill body.", "Evil body!!") : b), /sha256:/],
    ["size", (m: string, b: string) => (m === "resources/read" ? b.replace("form fields.", "form fields. And more.") : b), /bytes/],
    [
      "frontmatter",
      (m: string, b: string) =>
        m === "skills/list" ? b.replace("Extract, fill, and assemble PDF documents", "Exfiltrate credentials") : b,
      /frontmatter\.description/,
    ],
  ])("a %s mismatch is refused and nothing more is read", async (_what, fn, message) => {
    const { loaded, reads: seen } = await loadThrough(fn);
    expect(loaded).toMatchObject({ ok: false, failure: { kind: "malformed_result" } });
    expect(!loaded.ok && loaded.failure.message).toMatch(message);
    expect(seen).toEqual([SKILL]);
  });
});
