/**
 * The runtime's published typings, seen by a consumer that has no `@types/node` (a browser, edge or
 * Deno project): the root entry, `/codegen`, the portable subpaths (`/auth`, `/client-features`,
 * `/caller`, `/protocol`, `/catalogue`) and the code `toolwright gen` writes type-check with
 * only the ES and DOM libs; the Node-only entries (`/stdio`, …) say they need `@types/node`, which
 * is why it is an optional peer. The package is copied, not linked, so nothing can find the repo's
 * `@types/node` by walking up from a symlink's real path.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyPackage } from "./support.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
let tmp: string;

function typecheck(name: string, files: readonly string[]): { code: number | null; output: string } {
  writeFileSync(
    join(tmp, `tsconfig.${name}.json`),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2023", "DOM"],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: false,
      },
      files,
    }),
  );
  const r = spawnSync(process.execPath, [tsc, "-p", `tsconfig.${name}.json`], { cwd: tmp, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "tw-types-"));
  copyPackage("runtime", join(tmp, "node_modules"));
  writeFileSync(join(tmp, "package.json"), JSON.stringify({ name: "no-node-types", private: true, type: "module" }));
  // Generated code for a design with formats, refs and results: it imports @toolwright/runtime/codegen only.
  cpSync(join(repo, "test", "golden", "scalars", "expected"), join(tmp, "gen"), { recursive: true });
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("runtime typings without @types/node", () => {
  it("the root entry, /codegen and generated code type-check with only the ES and DOM libs", () => {
    writeFileSync(
      join(tmp, "root.ts"),
      [
        'import { createRuntime, renderFailure, type ToolResult } from "@toolwright/runtime";',
        'import { createDecoder, type Caller } from "@toolwright/runtime/codegen";',
        'import { createScalarsClient } from "./gen/scalars/index.js";',
        "export const runtime = createRuntime();",
        "export function show(r: ToolResult<unknown>): string { return r.ok ? 'ok' : renderFailure(r.failure); }",
        "export const decoder = createDecoder;",
        "export const client = (caller: Caller) => createScalarsClient(caller);",
        "",
      ].join("\n"),
    );
    const r = typecheck("root", ["root.ts"]);
    expect(r.output).toBe("");
    expect(r.code).toBe(0);
  });

  it("the subpaths for OAuth, client features, callers, protocol and catalogue tooling type-check with only the ES and DOM libs", () => {
    writeFileSync(
      join(tmp, "subpaths.ts"),
      [
        'import { createOAuthProvider, type TokenStore } from "@toolwright/runtime/auth";',
        'import { createClientFeatures } from "@toolwright/runtime/client-features";',
        'import { mapTransportCode } from "@toolwright/runtime/caller";',
        'import { type Outcome, type RpcRequest } from "@toolwright/runtime/protocol";',
        'import { fingerprintCatalogue, lintCatalogue } from "@toolwright/runtime/catalogue";',
        "export const oauth = createOAuthProvider;",
        "export type Store = TokenStore;",
        "export const features = createClientFeatures();",
        "export const code = mapTransportCode;",
        "export type Pair = [Outcome<number>, RpcRequest];",
        "export const tools = [fingerprintCatalogue, lintCatalogue];",
        "",
      ].join("\n"),
    );
    const r = typecheck("subpaths", ["subpaths.ts"]);
    expect(r.output).toBe("");
    expect(r.code).toBe(0);
  });

  it("a Node-only entry needs @types/node (the optional peer), and says so", () => {
    writeFileSync(join(tmp, "stdio.ts"), 'export { createStdioCaller } from "@toolwright/runtime/stdio";\n');
    const r = typecheck("stdio", ["stdio.ts"]);
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/NodeJS|node:/);
  });
});
