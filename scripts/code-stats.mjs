#!/usr/bin/env node
// Code-shape numbers per package, for issue closing notes: run by hand (`node scripts/code-stats.mjs`;
// it reads src, so no build is needed), never in CI. It prints per package the largest file, the
// longest function and the comment-line ratio (cloc's rule: comment-only lines / non-blank lines),
// and per runtime entry the names it exports.
// It parses with the compiler API of the repo's TypeScript 7 (`typescript/unstable/*`, a tsgo child
// process behind a sync API) rather than by hand, so strings, templates and regexes that contain `//`
// are never taken for comments, and the export counts are the checker's (re-exports resolved).
//   --functions N   also list every function of N lines or more, longest first
//   --files N       also list every file of N lines or more, largest first
//   --ratios P      also list every file whose comment-line ratio is under P percent, lowest first
//   --folders       also print the comment-line ratio of each src/ folder
//   --json          print only {files, functions} (every file and function of packages/*/src) as JSON,
//                   for test/architecture/code-shape.test.ts
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createScanner, getLeadingCommentRanges, LanguageVariant, SyntaxKind } from "typescript/unstable/ast";
import { API, SymbolFlags } from "typescript/unstable/sync";

const root = join(import.meta.dirname, "..");
const flag = (name) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : Number(process.argv[at + 1]);
};
const listFunctions = flag("--functions");
const listFiles = flag("--files");
const listRatios = flag("--ratios");
const listFolders = process.argv.includes("--folders");
const asJson = process.argv.includes("--json");
const log = asJson ? () => {} : console.log;

const FUNCTION_KINDS = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);
const COMMENT_KINDS = new Set([SyntaxKind.SingleLineCommentTrivia, SyntaxKind.MultiLineCommentTrivia]);

/** A function's display name: its own, or the variable/property it is assigned to. */
function functionName(node) {
  if (node.name?.text) return node.name.text;
  if (node.kind === SyntaxKind.Constructor) return "constructor";
  const parent = node.parent;
  if (parent?.name?.text) return parent.name.text;
  return "(anonymous)";
}

/**
 * Every comment in the file, as [start, end) offsets. A node's own tokens (punctuation, keywords)
 * sit in the gaps between its children, so only gaps (and childless nodes such as an empty block) are
 * scanned; literals are never scanned (a template middle scanned out of context could read `//` in its
 * text as a comment), only their leading trivia is read.
 */
function commentRanges(sf) {
  const text = sf.text;
  const found = new Map();
  const scanner = createScanner(false, LanguageVariant.Standard, text);
  const scanGap = (start, end) => {
    if (end <= start) return;
    scanner.setText(text, start, end - start);
    for (let kind = scanner.scan(); kind !== SyntaxKind.EndOfFile; kind = scanner.scan()) {
      if (COMMENT_KINDS.has(kind)) found.set(scanner.getTokenStart(), scanner.getTokenEnd());
    }
  };
  const visit = (node) => {
    const children = [];
    node.forEachChild((child) => {
      children.push(child);
    });
    if (children.length === 0 && node.kind >= SyntaxKind.FirstLiteralToken && node.kind <= SyntaxKind.LastTemplateToken) {
      for (const range of getLeadingCommentRanges(text, node.pos) ?? []) found.set(range.pos, range.end);
      return;
    }
    let cursor = node.pos;
    for (const child of children) {
      scanGap(cursor, child.pos);
      visit(child);
      cursor = child.end;
    }
    scanGap(cursor, node.end);
  };
  visit(sf);
  return [...found.entries()];
}

/** Line numbers (0-based) that hold nothing but comment text, and the non-blank line count. */
function commentLines(sf) {
  const lines = sf.text.split("\n");
  const starts = sf.getLineStarts();
  const masked = lines.map((line) => [...line]);
  const touched = new Set();
  for (const [start, end] of commentRanges(sf)) {
    const first = sf.getLineAndCharacterOfPosition(start).line;
    const last = sf.getLineAndCharacterOfPosition(end).line;
    for (let line = first; line <= last; line++) {
      touched.add(line);
      const from = Math.max(start - starts[line], 0);
      const to = Math.min(end - starts[line], masked[line].length);
      for (let i = from; i < to; i++) masked[line][i] = " ";
    }
  }
  let comment = 0;
  let nonBlank = 0;
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    nonBlank++;
    // cloc's rule: a line with code and a trailing comment is a code line.
    if (touched.has(i) && masked[i].join("").trim() === "") comment++;
  });
  return { comment, nonBlank };
}

function functionsOf(sf) {
  const out = [];
  const visit = (node) => {
    if (FUNCTION_KINDS.has(node.kind) && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.end).line;
      out.push({ name: functionName(node), line: first + 1, lines: last - first + 1 });
    }
    node.forEachChild(visit);
  };
  visit(sf);
  return out;
}

const api = new API({ cwd: root });
const packages = readdirSync(join(root, "packages")).sort();
const snapshot = api.updateSnapshot({ openProjects: packages.map((p) => join(root, "packages", p, "tsconfig.json")) });
const allFunctions = [];
const allFiles = [];
const pct = (a, b) => `${((100 * a) / b).toFixed(1)}%`;

for (const pkg of packages) {
  const configFile = join(root, "packages", pkg, "tsconfig.json");
  const project = snapshot.getProject(configFile);
  if (!project) continue;
  const srcDir = join(root, "packages", pkg, "src");
  const files = project.rootFiles.filter((f) => f.startsWith(`${srcDir}/`) && !f.endsWith(".d.ts"));
  let largest = { file: "", lines: 0 };
  let longest = { name: "", file: "", line: 0, lines: 0 };
  let comment = 0;
  let nonBlank = 0;
  for (const file of files) {
    const sf = project.program.getSourceFile(file);
    const rel = relative(root, file);
    const lines = sf.getLineStarts().length - (sf.text.endsWith("\n") ? 1 : 0);
    const counts = commentLines(sf);
    allFiles.push({ file: rel, lines, ratio: counts.comment / counts.nonBlank, ...counts });
    if (lines > largest.lines) largest = { file: rel, lines };
    for (const fn of functionsOf(sf)) {
      allFunctions.push({ ...fn, file: rel });
      if (fn.lines > longest.lines) longest = { ...fn, file: rel };
    }
    comment += counts.comment;
    nonBlank += counts.nonBlank;
  }
  log(`${pkg} (${files.length} files)`);
  log(`  largest file      ${largest.file} (${largest.lines} lines)`);
  log(`  longest function  ${longest.name} ${longest.file}:${longest.line} (${longest.lines} lines)`);
  log(`  comment lines     ${comment} / ${nonBlank} non-blank = ${pct(comment, nonBlank)}`);

  const manifest = JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8"));
  if (pkg !== "runtime") continue;
  // Entries come from package.json "exports" (what users can import), mapped from dist back to src.
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const built = typeof target === "string" ? target : target.default;
    if (!built?.endsWith(".js")) continue;
    const source = join(root, "packages", pkg, built.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
    const sf = project.program.getSourceFile(source);
    const moduleSymbol = project.checker.getSymbolAtLocation(sf);
    const names = project.checker.getExportsOfModule(moduleSymbol);
    let values = 0;
    for (const name of names) {
      const target = name.flags & SymbolFlags.Alias ? project.checker.getAliasedSymbol(name) : name;
      if (target.flags & SymbolFlags.Value) values++;
    }
    log(`  exports ${subpath.padEnd(12)} ${names.length} names (${values} values, ${names.length - values} types only)`);
  }
}

if (listFunctions !== undefined) {
  log(`\nfunctions of ${listFunctions}+ lines`);
  for (const fn of allFunctions.filter((f) => f.lines >= listFunctions).sort((a, b) => b.lines - a.lines)) {
    log(`  ${String(fn.lines).padStart(4)}  ${fn.name}  ${fn.file}:${fn.line}`);
  }
}
if (listFiles !== undefined) {
  log(`\nfiles of ${listFiles}+ lines`);
  for (const f of allFiles.filter((x) => x.lines >= listFiles).sort((a, b) => b.lines - a.lines)) {
    log(`  ${String(f.lines).padStart(4)}  ${f.file}`);
  }
}
if (listFolders) {
  log("\ncomment lines per folder");
  const folders = new Map();
  for (const f of allFiles) {
    const parts = f.file.split("/");
    // packages/<pkg>/src/<folder>/...; files at src/ count as "(root)".
    const key = `${parts[1]}/${parts.length > 4 ? parts[3] : "(root)"}`;
    const sum = folders.get(key) ?? { comment: 0, nonBlank: 0 };
    sum.comment += f.comment;
    sum.nonBlank += f.nonBlank;
    folders.set(key, sum);
  }
  for (const [key, sum] of [...folders].sort())
    log(`  ${key.padEnd(28)} ${pct(sum.comment, sum.nonBlank).padStart(6)}  (${sum.comment} / ${sum.nonBlank})`);
}
if (listRatios !== undefined) {
  log(`\nfiles under ${listRatios}% comment lines`);
  for (const f of allFiles.filter((x) => 100 * x.ratio < listRatios).sort((a, b) => a.ratio - b.ratio)) {
    log(`  ${(100 * f.ratio).toFixed(1).padStart(5)}%  ${String(f.lines).padStart(4)}  ${f.file}`);
  }
}
api.close();
if (asJson) console.log(JSON.stringify({ files: allFiles.map(({ file, lines }) => ({ file, lines })), functions: allFunctions }));
