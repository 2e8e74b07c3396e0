/**
 * The packages are fit to publish: each tarball passes publint (warnings count as errors) and
 * Are The Types Wrong in its esm-only profile (the packages are ESM only, on purpose), and each
 * manifest carries the metadata and dependency shape users rely on.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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

  it("every package its published .d.ts import brings its own types or has its @types in dependencies", () => {
    const missing: string[] = [];
    for (const dir of PUBLISHED) {
      const m = manifest(dir);
      const declared = { ...m.dependencies, ...m.peerDependencies };
      for (const name of bareImportsOfDeclarations(join(REPO, "packages", dir, "dist"))) {
        const typesPackage = `@types/${name.startsWith("@") ? name.slice(1).replace("/", "__") : name}`;
        if (!shipsOwnTypes(name) && declared[typesPackage] === undefined) missing.push(`${m.name}: ${name} needs ${typesPackage}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

/** The packages (not node: builtins, not relative paths) that the .d.ts files under `dist` import. */
function bareImportsOfDeclarations(dist: string): Set<string> {
  const names = new Set<string>();
  for (const e of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || !e.name.endsWith(".d.ts")) continue;
    const text = readFileSync(join(e.parentPath, e.name), "utf8");
    for (const [, spec = ""] of text.matchAll(/(?:from\s+|import\(\s*)"([^"]+)"/g)) {
      if (spec.startsWith(".") || spec.startsWith("node:")) continue;
      const parts = spec.split("/");
      names.add(spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? spec));
    }
  }
  return names;
}

/** Whether the installed package `name` declares its own types (a `types` field, typed exports, or an index.d.ts). */
function shipsOwnTypes(name: string): boolean {
  const manifestPath = join(REPO, "node_modules", ...name.split("/"), "package.json");
  if (!existsSync(manifestPath)) return name.startsWith("@toolwright/");
  const text = readFileSync(manifestPath, "utf8");
  const pkg = JSON.parse(text) as { types?: string; typings?: string };
  return (
    pkg.types !== undefined ||
    pkg.typings !== undefined ||
    /"types"\s*:/.test(text) ||
    existsSync(join(dirname(manifestPath), "index.d.ts"))
  );
}
