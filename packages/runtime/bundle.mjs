// Bundles tsc's JavaScript (dist/tsc) into one ES module per public entry point plus a few shared
// chunks, next to tsc's declarations in dist. Why (README, design notes): a tree of ~50 modules made
// Node's ESM resolver hot enough to be compiled by TurboFan during the import, which alone touched
// ~4.5 MiB of RSS. The chunks are manual so that root + stdio + http load six files: a Node-free
// `client` chunk (what the root entry reaches), a `stdio` and an `http` chunk, and the entries.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const dir = fileURLToPath(new URL(".", import.meta.url));
const js = resolve(dir, "dist/tsc");
const manifest = JSON.parse(readFileSync(resolve(dir, "package.json"), "utf8"));
const input = {};
for (const target of Object.values(manifest.exports)) {
  const path = typeof target === "object" ? target.default : undefined;
  if (typeof path === "string" && path.endsWith(".js"))
    input[path.slice("./dist/".length, -".js".length)] = resolve(js, path.slice("./dist/".length));
}

/** The modules a file reaches through static imports (dynamic `import()` stays lazy). */
function closure(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s(?:[^"';]*?\sfrom\s)?"(\.[^"]+)"/g))
    closure(resolve(dirname(file), m[1]), seen);
  return seen;
}
const entryFiles = new Set(Object.values(input));
const importsNode = (file) => /(?:^|\n)\s*import\s(?:[^"';]*?\sfrom\s)?"node:/.test(readFileSync(file, "utf8"));
const stdioReach = closure(input.stdio);
const httpReach = closure(input.http);
// The root entry's modules, plus the Node-free ones both /stdio and /http use (so /http alone does
// not load the stdio chunk and node:child_process). The root entry stays free of Node built-ins.
const client = new Set([...closure(input.index), ...[...stdioReach].filter((f) => httpReach.has(f) && !importsNode(f))]);
const stdio = new Set([...stdioReach].filter((f) => !client.has(f)));
const http = new Set([...httpReach].filter((f) => !client.has(f) && !stdio.has(f)));
for (const f of client) if (importsNode(f)) throw new Error(`bundle: ${f} imports a Node built-in but the root entry must not`);
const group = (name, files, priority) => ({ name, priority, test: (id) => files.has(id) && !entryFiles.has(id) });

// JavaScript left in dist by an older build (the unbundled tree, earlier chunks) would be published.
for (const entry of readdirSync(resolve(dir, "dist"), { recursive: true, withFileTypes: true })) {
  const path = resolve(entry.parentPath, entry.name);
  if (entry.isFile() && path.endsWith(".js") && !path.startsWith(`${js}/`)) rmSync(path);
}
await build({
  input,
  platform: "node",
  external: (id) => !id.startsWith(".") && !id.startsWith("/"),
  logLevel: "warn",
  output: {
    dir: resolve(dir, "dist"),
    format: "es",
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name]-[hash].js",
    codeSplitting: { groups: [group("client", client, 3), group("stdio", stdio, 2), group("http", http, 1)] },
  },
});
