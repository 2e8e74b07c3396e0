/**
 * The dependency rules (`.dependency-cruiser.cjs`, run by `npm run lint`) really fail: the real
 * dependency-cruiser, with the repository's own config, is run on a scratch tree laid out like the
 * repository, where each file breaks one rule, beside files whose edges are allowed.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const cli = join(repo, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const scratch = mkdtempSync(join(tmpdir(), "toolwright-depcruise-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** path → source; every file imports what its source says. */
const files: { readonly [path: string]: string } = {
  "package.json": JSON.stringify({ name: "scratch", dependencies: { "left-pad": "1.0.0" } }),
  "node_modules/left-pad/package.json": JSON.stringify({ name: "left-pad", version: "1.0.0", main: "index.js" }),
  "node_modules/left-pad/index.js": "module.exports = (s) => s;\n",
  // Allowed edges.
  "packages/runtime/src/index.ts": 'export { createRuntime } from "./core/runtime.js";\n',
  "packages/runtime/src/core/runtime.ts": 'import { wire } from "../caller/caller.js";\nexport const createRuntime = () => wire;\n',
  "packages/runtime/src/caller/caller.ts": 'import { frame } from "../protocol/json-rpc.js";\nexport const wire = frame;\n',
  "packages/runtime/src/failure/failure.ts": "export const failure = 1;\n",
  "packages/runtime/src/protocol/json-rpc.ts": 'import { failure } from "../failure/failure.js";\nexport const frame = failure;\n',
  "packages/runtime/src/protocol/mcp-client.ts": 'import { frame } from "./json-rpc.js";\nexport const session = frame;\n',
  "packages/runtime/src/transport/stdio.ts": 'import { frame } from "../protocol/json-rpc.js";\nexport const pipe = frame;\n',
  "packages/runtime/src/manager/pool.ts": 'import { wire } from "../caller/caller.js";\nexport const pool = wire;\n',
  "packages/runtime/src/planner/render.ts": 'import { wire } from "../caller/caller.js";\nexport const render = wire;\n',
  "packages/runtime/src/server/serve.ts": 'import { frame } from "../protocol/json-rpc.js";\nexport const serve = frame;\n',
  "packages/runtime/src/caller.ts": 'export { wire } from "./caller/caller.js";\nexport { frame } from "./protocol/json-rpc.js";\n',
  "packages/runtime/src/stray/thing.ts": "export const thing = 1;\n",
  "examples/demo/src/gen/x/types.gen.ts": "export type T = string;\n",
  // One broken rule each.
  "packages/runtime/src/protocol/peer.ts": 'import { pool } from "../manager/pool.js";\nexport const peer = pool;\n',
  "packages/runtime/src/transport/http.ts": 'import { session } from "../protocol/mcp-client.js";\nexport const http = session;\n',
  "packages/runtime/src/protocol.ts": 'export { frame } from "./protocol/json-rpc.js";\nexport { wire } from "./caller/caller.js";\n',
  "packages/runtime/src/core/uses-planner.ts": 'import { render } from "../planner/render.js";\nexport const u = render;\n',
  "packages/runtime/src/manager/serves.ts": 'import { serve } from "../server/serve.js";\nexport const s = serve;\n',
  "packages/runtime/src/core/uses-stray.ts": 'import { thing } from "../stray/thing.js";\nexport const t = thing;\n',
  "packages/runtime/src/core/loop-a.ts": 'import { b } from "./loop-b.js";\nexport const a = () => b;\n',
  "packages/runtime/src/core/loop-b.ts": 'import { a } from "./loop-a.js";\nexport const b = () => a;\n',
  "packages/runtime/src/core/uses-entry.ts": 'import { createRuntime } from "../index.js";\nexport const r = createRuntime;\n',
  "packages/runtime/src/core/pad.ts": 'import pad from "left-pad";\nexport const p = pad;\n',
  "packages/runtime/src/helper.ts": "export const h = 1;\n",
  "packages/runtime/src/core/uses-helper.ts": 'import { h } from "../helper.js";\nexport const u = h;\n',
  "packages/codegen/src/errors.ts": "export class DesignError extends Error {}\n",
  "packages/codegen/src/plugins/validating.ts": 'import { DesignError } from "../errors.js";\nexport const e = DesignError;\n',
  "packages/runtime/src/codegen-user.ts": 'import { DesignError } from "../../codegen/src/errors.js";\nexport const c = DesignError;\n',
  "examples/demo/src/gen/x/client.gen.ts":
    'import type { T } from "./types.gen.js";\nimport { DesignError } from "../../../../../packages/codegen/src/errors.js";\nexport const t: T = String(DesignError);\n',
};

for (const [path, text] of Object.entries(files)) {
  mkdirSync(dirname(join(scratch, path)), { recursive: true });
  writeFileSync(join(scratch, path), text);
}

describe("dependency rules", () => {
  it("fail on each broken rule, and only there", async () => {
    const run = promisify(execFile)(
      process.execPath,
      [cli, "packages", "examples", "--config", join(repo, ".dependency-cruiser.cjs"), "--no-cache", "--output-type", "err"],
      { cwd: scratch, maxBuffer: 16 * 1024 * 1024 },
    );
    // As in `npm run lint`: depcruise exits with the number of errors, the report on stdout.
    const failure = (await run.then(
      () => undefined,
      (error: unknown) => error,
    )) as { code?: number; stdout?: string } | undefined;
    expect(failure?.code).toBe(13);
    // `error <rule>: <from> → <to>`; a cycle prints its loop over the following lines.
    const found = [...(failure?.stdout ?? "").matchAll(/error (\S+): (\S+) →\s+(\S+)/g)].map((m) => `${m[1]}: ${m[2]} -> ${m[3]}`).sort();
    const R = "packages/runtime/src";
    expect(found).toEqual(
      [
        `floors-point-down: ${R}/protocol/peer.ts -> ${R}/manager/pool.ts`,
        `entry-faces-its-folder: ${R}/protocol.ts -> ${R}/caller/caller.ts`,
        `core-does-not-import-wings: ${R}/core/uses-planner.ts -> ${R}/planner/render.ts`,
        `manager-does-not-import-server: ${R}/manager/serves.ts -> ${R}/server/serve.ts`,
        `every-runtime-folder-has-a-floor: ${R}/core/uses-stray.ts -> ${R}/stray/thing.ts`,
        `transport-imports-only-wire-protocol-and-failure: ${R}/transport/http.ts -> ${R}/protocol/mcp-client.ts`,
        `no-circular: ${R}/core/loop-a.ts -> ${R}/core/loop-b.ts`,
        `runtime-entries-are-imported-only-by-entries: ${R}/core/uses-entry.ts -> ${R}/index.ts`,
        `runtime-and-dsl-have-no-npm-dependencies: ${R}/core/pad.ts -> node_modules/left-pad/index.js`,
        `runtime-root-holds-only-entries: ${R}/core/uses-helper.ts -> ${R}/helper.ts`,
        "emitters-never-validate: packages/codegen/src/plugins/validating.ts -> packages/codegen/src/errors.ts",
        `nothing-below-codegen-imports-codegen: ${R}/codegen-user.ts -> packages/codegen/src/errors.ts`,
        "generated-code-imports-only-the-runtime: examples/demo/src/gen/x/client.gen.ts -> packages/codegen/src/errors.ts",
      ].sort(),
    );
  });
});
