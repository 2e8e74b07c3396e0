/**
 * What importing `@toolwright/runtime` + `/stdio` + `/http` from the built package loads (issue 17's
 * import-cost target). Few files: Node compiles its ESM resolver with TurboFan once ~25 imports
 * resolve in one process, and that alone adds ~4.5 MiB of RSS (docs/performance.md, "Import cost").
 * No OAuth, server, manager or catalogue code, and no TLS, DNS or crypto built-in: those load on
 * first use. Run against `packages/runtime/dist` (`npm test` builds).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CHILD_ENV, LOAD_HOOK_IMPORT, REPO } from "./support.js";

const ALL = ["@toolwright/runtime", "@toolwright/runtime/stdio", "@toolwright/runtime/http"];

function importEntries(entries: readonly string[] = ALL) {
  const code = [
    ...entries.map((entry) => `await import(${JSON.stringify(entry)});`),
    // moduleLoadList names Node's own built-ins as they load, including those loaded by require().
    "process.stdout.write(JSON.stringify(process.moduleLoadList));",
  ].join("");
  const r = spawnSync(process.execPath, ["--import", LOAD_HOOK_IMPORT, "--input-type=module", "-e", code], {
    cwd: REPO,
    env: CHILD_ENV,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  const files = r.stderr
    .split("\n")
    .filter((line) => line.startsWith("LOADED file:"))
    .map((line) => fileURLToPath(line.slice(7)));
  return { files, builtins: JSON.parse(r.stdout) as string[] };
}

describe("importing @toolwright/runtime + /stdio + /http", () => {
  const { files, builtins } = importEntries();
  // The bundled files name the source modules they hold (`// …/dist/tsc/<path>.js` above each).
  const sources = files.flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/^\/\/ \S*dist\/tsc\/(\S+\.js)$/gm)].map((m) => m[1] as string),
  );

  it("loads the three entries and at most three shared chunks, all from the runtime's dist", () => {
    expect(
      files.every((file) => file.includes("/packages/runtime/dist/")),
      files.join("\n"),
    ).toBe(true);
    expect(files.filter((file) => /\/dist\/(index|stdio|http)\.js$/.test(file))).toHaveLength(3);
    expect(files.length, files.join("\n")).toBeLessThanOrEqual(6);
    // The hot path is really there, so the list below is checked against the real bundle.
    expect(sources).toEqual(expect.arrayContaining(["caller/session-core.js", "transport/stdio-process.js", "transport/http-exchange.js"]));
  });

  it("holds no OAuth, server, manager, catalogue, provider, durable or skills code", () => {
    const heavy =
      /^(auth|server|manager|catalogue|providers|schema|client-features)\/|^core\/durable|\/(uri-template|skills|frontmatter)\.js$/;
    expect(sources.filter((source) => heavy.test(source))).toEqual([]);
  });

  it("loads no TLS, DNS or crypto built-in beyond what node:child_process + node:http load (they load on first use)", () => {
    // The floor differs by Node version (Node 22 loads tls with node:http): compare in this Node.
    const floor = new Set(importEntries(["node:child_process", "node:http"]).builtins);
    const extra = builtins.filter((name) => !floor.has(name));
    expect(extra.filter((name) => /^NativeModule (https|tls|_tls_\w+|dns|crypto|internal\/(crypto|tls|dns)\/.*)$/.test(name))).toEqual([]);
    expect(builtins).toContain("NativeModule child_process");
    expect(builtins).toContain("NativeModule http");
  });
});

describe("each entry alone loads only its own Node built-ins", () => {
  // Not `net`: Node loads it for a piped stdout before any import.
  const nodeModules = (builtins: readonly string[]) =>
    builtins.filter((name) => /^NativeModule (child_process|http|https|dns)$/.test(name));

  it("the root entry loads no Node built-in for I/O", () => {
    expect(nodeModules(importEntries(["@toolwright/runtime"]).builtins)).toEqual([]);
  });

  it("/http loads node:http but not node:child_process; /stdio the reverse", () => {
    expect(nodeModules(importEntries(["@toolwright/runtime/http"]).builtins)).toEqual(["NativeModule http"]);
    expect(nodeModules(importEntries(["@toolwright/runtime/stdio"]).builtins)).toEqual(["NativeModule child_process"]);
  });
});
