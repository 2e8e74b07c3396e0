/**
 * The built `toolwright` bin, invoked every way users invoke it: `node dist/bin.js`, a symlink (as
 * in `node_modules/.bin`), an npm script, `npm exec`/npx, and a pnpm-style layout where the package
 * folder is itself a symlink into a store. Each must run the CLI: print `--version`, and return the
 * documented exit codes (0 ok, 2 usage error). Run against `packages/codegen/dist` (`npm test` builds).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHILD_ENV, LOAD_HOOK_IMPORT, REPO } from "./support.js";

const repo = REPO;
const codegen = join(repo, "packages", "codegen");
const bin = join(codegen, "dist", "bin.js");
const version = (JSON.parse(readFileSync(join(codegen, "package.json"), "utf8")) as { version: string }).version;
let tmp: string;

function run(command: string, args: readonly string[], cwd: string) {
  const r = spawnSync(command, args, { cwd, env: CHILD_ENV, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

/** A project whose node_modules links @toolwright/codegen (to `target`) and its `.bin/toolwright`. */
function project(name: string, link: (nodeModules: string) => void): string {
  const dir = join(tmp, name);
  mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name, private: true, scripts: { tw: "toolwright --version", "tw-bad": "toolwright nope" } }),
  );
  link(join(dir, "node_modules"));
  symlinkSync("../@toolwright/codegen/dist/bin.js", join(dir, "node_modules", ".bin", "toolwright"));
  return dir;
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "tw-bin-"));
  // npm sets the executable bit when it installs a bin; the workspace build does not.
  chmodSync(bin, 0o755);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("toolwright bin", () => {
  it("node dist/bin.js --version prints the package version", () => {
    const r = run(process.execPath, [bin, "--version"], repo);
    expect(r).toMatchObject({ code: 0, stdout: version });
  });

  it("--version and --help load only the command definitions: no generator, runtime, tsx, ajv or TypeScript", () => {
    const register = LOAD_HOOK_IMPORT;
    for (const flag of ["--version", "--help"]) {
      const r = run(process.execPath, ["--import", register, bin, flag], repo);
      expect(r.code).toBe(0);
      const loaded = r.stderr
        .split("\n")
        .filter((line) => line.startsWith("LOADED "))
        .map((line) => line.slice(7));
      // --help needs yargs and the command definitions; a bare --version is answered before them.
      expect(loaded.some((url) => url.endsWith("/codegen/dist/cli.js"))).toBe(flag === "--help");
      const heavy = /\/packages\/runtime\/|\/run-gen\.js$|\/node_modules\/(ajv|typescript|json-schema-to-typescript|tsx)\//;
      expect(loaded.filter((url) => heavy.test(url))).toEqual([]);
    }
  });

  it("a bare --version loads only bin.js and version.js: no yargs, no command module (issue 25: start-up ≤ 1.5× node -e 0 in the bench)", () => {
    const r = run(process.execPath, ["--import", LOAD_HOOK_IMPORT, bin, "--version"], repo);
    expect(r).toMatchObject({ code: 0, stdout: version });
    const loaded = r.stderr
      .split("\n")
      .filter((line) => line.startsWith("LOADED file:"))
      .map((line) => line.slice(7).replace(/^.*\/packages\/codegen\//, ""));
    // Node 22 and later pass require() through the load hooks too, so the manifest the version is
    // read from shows up there; it is data, not a module with code.
    expect(loaded.filter((path) => path !== "package.json").sort()).toEqual(["dist/bin.js", "dist/version.js"]);
  });

  it("a usage error exits 2 with the reason on stderr", () => {
    const r = run(process.execPath, [bin, "frobnicate"], repo);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Unknown argument: frobnicate/);
    const noCommand = run(process.execPath, [bin], repo);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toMatch(/name a command/);
  });

  it("runs through a symlink, directly and through node", () => {
    const link = join(tmp, "toolwright-link");
    symlinkSync(bin, link);
    expect(run(link, ["--version"], tmp)).toMatchObject({ code: 0, stdout: version });
    expect(run(process.execPath, [link, "--version"], tmp)).toMatchObject({ code: 0, stdout: version });
  });

  it("runs from an npm script and through npm exec (npx), and their exit codes come through", () => {
    const dir = project("npm-layout", (nm) => {
      mkdirSync(join(nm, "@toolwright"));
      symlinkSync(codegen, join(nm, "@toolwright", "codegen"));
    });
    expect(run("npm", ["run", "--silent", "tw"], dir)).toMatchObject({ code: 0, stdout: version });
    expect(run("npm", ["run", "--silent", "tw-bad"], dir).code).toBe(2);
    expect(run("npm", ["exec", "--offline", "--", "toolwright", "--version"], dir)).toMatchObject({ code: 0, stdout: version });
  });

  it("runs from a pnpm-style layout (package folder is a symlink into a store)", () => {
    const dir = project("pnpm-layout", (nm) => {
      const store = join(nm, ".pnpm", `@toolwright+codegen@${version}`, "node_modules", "@toolwright");
      mkdirSync(store, { recursive: true });
      symlinkSync(codegen, join(store, "codegen"));
      mkdirSync(join(nm, "@toolwright"));
      symlinkSync(join(store, "codegen"), join(nm, "@toolwright", "codegen"));
    });
    expect(run(join(dir, "node_modules", ".bin", "toolwright"), ["--version"], dir)).toMatchObject({ code: 0, stdout: version });
    const viaLink = join(dir, "node_modules", "@toolwright", "codegen", "dist", "bin.js");
    expect(run(process.execPath, [viaLink, "--version"], dir)).toMatchObject({ code: 0, stdout: version });
    expect(run("npm", ["run", "--silent", "tw"], dir)).toMatchObject({ code: 0, stdout: version });
  });
});
