/**
 * The packages are fit to publish: each tarball passes publint (warnings count as errors) and
 * Are The Types Wrong in its esm-only profile (the packages are ESM only, on purpose), and each
 * manifest carries the metadata and dependency shape users rely on.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PackedPackage, PUBLISHED, packWorkspaces, REPO, run } from "./support.js";

let dest: string;
let packed: readonly PackedPackage[];

interface Manifest {
  readonly name: string;
  readonly license?: string;
  readonly repository?: { readonly url?: string; readonly directory?: string };
  readonly homepage?: string;
  readonly keywords?: readonly string[];
  readonly engines?: { readonly node?: string };
  readonly dependencies?: { readonly [name: string]: string };
  readonly peerDependencies?: { readonly [name: string]: string };
  readonly peerDependenciesMeta?: { readonly [name: string]: { readonly optional?: boolean } };
}

const manifest = (dir: string) => JSON.parse(readFileSync(join(REPO, "packages", dir, "package.json"), "utf8")) as Manifest;

beforeAll(async () => {
  dest = mkdtempSync(join(tmpdir(), "tw-publish-"));
  packed = await packWorkspaces(dest);
}, 120_000);

afterAll(() => rmSync(dest, { recursive: true, force: true }));

// publint and attw through npx: seconds on a quiet machine, minutes at load 8 on 2 cores.
describe("publish readiness", { timeout: 600_000 }, () => {
  it.each(PUBLISHED)("@toolwright/%s passes publint --strict and attw --profile esm-only", async (name) => {
    const tarball = join(dest, packed.find((p) => p.name === `@toolwright/${name}`)?.filename ?? "missing");
    const lint = await run("npx", ["--no-install", "publint", "run", tarball, "--strict"], REPO);
    expect(lint.code, `${lint.stdout}${lint.stderr}`).toBe(0);
    expect(lint.stdout).toMatch(/All good!/);
    const types = await run("npx", ["--no-install", "attw", tarball, "--profile", "esm-only", "--format", "ascii"], REPO);
    expect(types.code, `${types.stdout}${types.stderr}`).toBe(0);
  });

  it.each(PUBLISHED)("@toolwright/%s has license, repository, homepage, keywords and engines", (dir) => {
    const m = manifest(dir);
    expect(m.license).toBe("MIT");
    expect(m.repository?.url).toMatch(/^git\+https:\/\//);
    expect(m.repository?.directory).toBe(`packages/${dir}`);
    expect(m.homepage).toMatch(/^https:\/\//);
    expect(m.keywords).toContain("mcp");
    expect(m.engines?.node).toBe(">=20");
  });

  it("dependency shape: runtime has none, the dsl is a ranged peer of codegen, codegen takes runtime by range", () => {
    const runtime = manifest("runtime");
    expect(runtime.dependencies ?? {}).toEqual({});
    expect(runtime.peerDependenciesMeta?.["@types/node"]?.optional).toBe(true);
    expect(manifest("dsl").dependencies ?? {}).toEqual({});
    const codegen = manifest("codegen");
    expect(codegen.peerDependencies?.["@toolwright/dsl"]).toBe("^0.1.0");
    expect(codegen.dependencies?.["@toolwright/dsl"]).toBeUndefined();
    expect(codegen.dependencies?.["@toolwright/runtime"]).toBe("^0.1.0");
    // Adapters take the runtime by range too, so an app's own runtime satisfies them (one copy).
    for (const dir of PUBLISHED.filter((w) => !["dsl", "runtime", "codegen"].includes(w))) {
      expect(manifest(dir).dependencies?.["@toolwright/runtime"], dir).toBe("^0.1.0");
    }
  });
});
