#!/usr/bin/env node
// Lint rule `no-era-literal`, run by `npm run lint`: a protocol revision's date ("2026-07-28",
// "2025-11-25"...) written as a string literal may appear only in the revision folders
// (packages/runtime/src/revisions/) and the negotiation code. Everywhere else code asks a
// `Revision` (docs/revisions.md). Comments and test files are not checked.
//
// Hand-written rather than a biome/GritQL plugin or a TypeScript AST walk: TypeScript 7 has no
// JavaScript API, and a biome plugin cannot be limited to some folders; a literal is one token,
// which the small lexer below finds while it skips comments, regular expressions and template
// substitutions.
// Usage: node scripts/check-era-literals.mjs [root]   (root defaults to the repository)
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = process.argv[2] ?? fileURLToPath(new URL("..", import.meta.url));

/** Where era literals belong. */
const ALLOWED = [
  /^packages\/runtime\/src\/revisions\//,
  // Negotiation: the era names a caller may pin, and the versions the handshake offers.
  /^packages\/runtime\/src\/protocol\/mcp-handshake\.ts$/,
];

/** Files whose dates are not protocol revisions, each with its reason. */
const EXEMPT = new Map([
  ["packages/codegen/src/resolve/example.ts", "a sample value of the JSON Schema `date` format"],
  ["packages/dsl/src/design-server.ts", "the DSL depends on nothing, so it lists the versions a designed server may pin itself"],
]);

const ERA = /^20\d\d-\d\d-\d\d$/;

/** Yields [line, value] for every string literal (and template without substitutions) in `text`. */
function* literals(text) {
  let i = 0;
  let line = 1;
  let last = ""; // last significant character, to tell a regular expression from a division
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === "\n") line++;
    if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end + 2;
      for (let j = i; j < stop; j++) if (text[j] === "\n") line++;
      i = stop;
      continue;
    }
    if (c === "/" && (last === "" || "(,=:[!&|?{};+-*%<>~^".includes(last))) {
      // A regular expression literal: skip to its closing slash (not inside a class, not escaped).
      let inClass = false;
      for (i++; i < n && text[i] !== "\n"; i++) {
        if (text[i] === "\\") i++;
        else if (text[i] === "[") inClass = true;
        else if (text[i] === "]") inClass = false;
        else if (text[i] === "/" && !inClass) break;
      }
      i++;
      last = "/";
      continue;
    }
    if (c === '"' || c === "'" || c === "`") {
      const startLine = line;
      let value = "";
      let plain = true;
      for (i++; i < n && text[i] !== c; i++) {
        if (text[i] === "\\") {
          value += text[i + 1];
          i++;
          continue;
        }
        if (text[i] === "\n") line++;
        if (c === "`" && text[i] === "$" && text[i + 1] === "{") {
          // A substitution: skip it by brace depth (strings inside it are not era literals of this template).
          plain = false;
          let depth = 0;
          for (; i < n; i++) {
            if (text[i] === "{") depth++;
            else if (text[i] === "}" && --depth === 0) break;
            else if (text[i] === "\n") line++;
          }
          continue;
        }
        value += text[i];
      }
      i++;
      last = c;
      if (plain) yield [startLine, value];
      continue;
    }
    if (!/\s/.test(c)) last = c;
    i++;
  }
}

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "dist" && entry.name !== "gen") yield* sources(path);
    } else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !/\.(test|gen|d)\.[mc]?[tj]s$/.test(entry.name)) yield path;
  }
}

const problems = [];
let packages = [];
try {
  packages = readdirSync(join(root, "packages"), { withFileTypes: true }).filter((d) => d.isDirectory());
} catch {
  console.error(`no-era-literal: no packages/ folder under ${root}`);
  process.exit(2);
}
for (const pkg of packages) {
  const src = join(root, "packages", pkg.name, "src");
  let files;
  try {
    files = [...sources(src)];
  } catch {
    continue; // a package without src/
  }
  for (const file of files) {
    const rel = relative(root, file).split(sep).join("/");
    if (ALLOWED.some((re) => re.test(rel)) || EXEMPT.has(rel)) continue;
    for (const [line, value] of literals(readFileSync(file, "utf8")))
      if (ERA.test(value))
        problems.push(`error no-era-literal: ${rel}:${line} ${JSON.stringify(value)} (ask a Revision; see docs/revisions.md)`);
  }
}
if (problems.length > 0) {
  console.log(problems.join("\n"));
  console.log(`\nx ${problems.length} era literal(s) outside packages/runtime/src/revisions/ and the negotiation code.`);
  process.exit(1);
}
