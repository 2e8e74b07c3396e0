/**
 * The README's Install section, followed line by line as a new user would, then the first build
 * with the `tsconfig.json` that `tsc --init` writes, unchanged, for every TypeScript version the
 * packages accept (`peerDependencies.typescript`, each `||` alternative installed from the npm
 * registry in turn). That default has `"types": []`: the design, the generated code (callers that
 * expand `${VAR}` for a stdio and an HTTP server, clients, validators, specs, a server scaffold) and
 * an app that uses them must build with no Node types. The project lives in the OS temp folder,
 * outside the repository, with the tarballs `npm pack --workspaces` makes, all of which the README
 * names.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFiles, NPM_FLAGS, type PackedPackage, packWorkspaces, REPO, run, runReadmeInstall } from "./support.js";

/** The `typescript` peer ranges of every workspace package, split at `||`, in the order first seen. */
const TS_RANGES = [
  ...new Set(
    readdirSync(join(REPO, "packages")).flatMap((folder) => {
      const manifest = JSON.parse(readFileSync(join(REPO, "packages", folder, "package.json"), "utf8")) as {
        peerDependencies?: { readonly [name: string]: string };
      };
      return (manifest.peerDependencies?.typescript ?? "").split("||").map((r) => r.trim());
    }),
  ),
].filter((r) => r !== "");

const MCP_JSON = {
  mcpServers: {
    notes: { command: "node", args: ["notes-server.js"], env: { NOTES_FILE: "${NOTES_FILE:-notes.jsonl}", NOTES_KEY: "literal" } },
    search: { url: "https://search.example.com/${TENANT:-public}/mcp", headers: { Authorization: "Bearer ${SEARCH_TOKEN}" } },
  },
};

const DESIGN = `import { design, externalServer, fromExternalMCP, mcpJson, mcpServer, number, object, string, toolset } from "@toolwright/dsl";

const calc = mcpServer("calc", { version: "1.0.0" }, (t) => {
  t.tool("add", { input: object({ a: number(), b: number() }), output: object({ sum: number() }) });
});

export default design({
  toolsets: [
    toolset("notes", fromExternalMCP("notes"), (t) => {
      t.tool("jot", { description: "Saves a note", input: object({ text: string({ minLength: 1 }) }), output: object({ id: string() }) });
    }),
    toolset("search", fromExternalMCP("search"), (t) => {
      t.tool("query", { input: object({ q: string() }) });
    }),
  ],
  servers: [externalServer("notes", mcpJson()), externalServer("search", mcpJson()), calc],
});
`;

/** The user's own code: it calls the generated callers and clients, and uses no Node API itself. */
const APP = `import { renderFailure } from "@toolwright/runtime";
import { createNotesCaller, createNotesClient } from "./gen/notes/index.js";
import { createSearchCaller, createSearchClient } from "./gen/search/index.js";

export async function jot(text: string): Promise<string> {
  const caller = createNotesCaller();
  try {
    const out = await createNotesClient(caller).jot({ text });
    return out.ok ? out.value.id : renderFailure(out.failure);
  } finally {
    await caller.close();
  }
}

export async function search(q: string): Promise<boolean> {
  const caller = createSearchCaller({ timeoutMs: 5_000 });
  try {
    return (await createSearchClient(caller).query({ q })).ok;
  } finally {
    await caller.close();
  }
}
`;

let root: string;
let app: string;
let packed: readonly PackedPackage[];
let installSection: string;

function ok(r: { code: number | null; stdout: string; stderr: string }, what: string): void {
  expect(r.code, `${what} failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "tw-install-"));
  app = join(root, "app");
  mkdirSync(app);
  packed = await packWorkspaces(app);
  const steps = await runReadmeInstall(app);
  expect(steps.map((s) => s.line)).toContain("npx tsc --init");
  installSection =
    readFileSync(join(REPO, "README.md"), "utf8")
      .split(/^## /m)
      .find((s) => s.startsWith("Install")) ?? "";
  mkdirSync(join(app, ".toolwright"));
  writeFileSync(join(app, ".toolwright", "mcp.json"), `${JSON.stringify(MCP_JSON, null, 2)}\n`);
  writeFileSync(join(app, "design.ts"), DESIGN);
  mkdirSync(join(app, "src"));
  writeFileSync(join(app, "src", "app.ts"), APP);
  const gen = await run("npx", ["--no-install", "toolwright", "gen", "design.ts", "--out", "src/gen"], app, 180_000);
  ok(gen, "toolwright gen");
}, 1_200_000);

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("the README's Install section, then tsc --init", () => {
  it("names every tarball `npm pack --workspaces` makes, and no other", () => {
    expect(packed.length).toBeGreaterThan(3);
    const named = [...installSection.matchAll(/toolwright-[a-z-]+-\d+\.\d+\.\d+\.tgz/g)].map((m) => m[0]);
    expect([...new Set(named)].sort()).toEqual(packed.map((p) => p.filename).sort());
  });

  it("generated the callers, clients and scaffold the build below covers, with no Node global in them", () => {
    const generated = listFiles(join(app, "src", "gen"));
    expect(generated).toEqual(
      expect.arrayContaining(["notes/caller.gen.ts", "search/caller.gen.ts", "notes/validators.gen.ts", "servers/calc/server.gen.ts"]),
    );
    expect(readFileSync(join(app, "src", "gen", "notes", "caller.gen.ts"), "utf8")).toContain("${NOTES_FILE:-notes.jsonl}");
  });

  it("the peer ranges name TypeScript versions to test", () => {
    expect(TS_RANGES.length).toBeGreaterThan(0);
  });

  it.each(TS_RANGES)(
    "typescript@%s: the default `tsc --init` tsconfig builds the design, the generated code and the app",
    async (range) => {
      ok(await run("npm", ["install", "--save-dev", `typescript@${range}`, ...NPM_FLAGS], app, 600_000), `npm install typescript@${range}`);
      rmSync(join(app, "tsconfig.json"), { force: true });
      ok(await run("npx", ["--no-install", "tsc", "--init"], app), "tsc --init");
      expect(readFileSync(join(app, "tsconfig.json"), "utf8")).toMatch(/^\s*"types": \[\],?$/m);
      const before = listFiles(app);
      const build = await run("npx", ["--no-install", "tsc"], app, 300_000);
      // What tsc wrote next to the sources goes, so the next version starts from the same files.
      for (const f of listFiles(app).filter((f) => !before.includes(f))) rmSync(join(app, f));
      ok(build, `tsc (typescript@${range})`);
      expect(`${build.stdout}${build.stderr}`).toBe("");
      // The same build fails on code that uses a Node global: the check is not passing for want of types: [].
      writeFileSync(join(app, "src", "uses-node.ts"), 'export const home: string | undefined = process.env["HOME"];\n');
      const control = await run("npx", ["--no-install", "tsc", "--noEmit"], app, 300_000);
      rmSync(join(app, "src", "uses-node.ts"));
      expect(control.code).not.toBe(0);
      expect(control.stdout).toMatch(/src\/uses-node\.ts\(1,\d+\): error TS\d+: Cannot find name 'process'/);
    },
    900_000,
  );
});
