/**
 * Builds the docs site (VitePress) from docs/ into .tmp/docs-site/, with warnings as errors, puts
 * the TypeDoc API reference (.tmp/api-docs, from scripts/typedoc.sh) under api/, and writes a copy
 * that opens from a folder into .tmp/docs-site-folder/ (see docs/contributing/docs.md: VitePress's
 * client is ES modules, which browsers refuse to load from file://, and its URLs are root-absolute,
 * so the copy is the prerendered HTML with relative URLs and no module scripts).
 * `npm run docs` runs it after the build, TypeDoc and the reference pages; the docs tests run it too.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const SITE = join(REPO, ".tmp", "docs-site");
const FOLDER = join(REPO, ".tmp", "docs-site-folder");
const API = join(REPO, ".tmp", "api-docs");

/** Lines of VitePress/Vite output that are warnings (Vite prints "(!)" and "[warn]"; Vue "warning"). */
const WARNING = /\(!\)|\bwarn(ing)?\b|dead link/i;

/** Runs the VitePress build; throws with its output when it fails or warns. */
function buildSite(): void {
  rmSync(SITE, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [join(REPO, "node_modules", "vitepress", "bin", "vitepress.js"), "build", "docs"], {
    cwd: REPO,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    timeout: 600_000,
  });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.status !== 0) throw new Error(`vitepress build failed (exit ${r.status}):\n${output}`);
  const warnings = output.split("\n").filter((line) => WARNING.test(line));
  if (warnings.length > 0) throw new Error(`vitepress build warned (warnings are errors):\n${warnings.join("\n")}`);
}

/** Every file under `dir`, as paths relative to it with "/" separators. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"));
}

/**
 * Rewrites one page for file://: root-absolute href/src become relative to the page, a link to a
 * folder gets its index.html, and module scripts and module preloads go (they cannot load from a
 * folder; the prerendered HTML needs none of them to read and navigate).
 */
export function relativizePage(html: string, page: string): string {
  const up = posix.relative(posix.dirname(`/${page}`), "/") || ".";
  const fix = (url: string) => {
    const [path = "", rest = ""] = url.split(/(?=[?#])/, 2);
    const target = path.endsWith("/") ? `${path}index.html` : path;
    return `${up}${target}${rest}`;
  };
  return html
    .replace(/<script type="module"[^>]*>[\s\S]*?<\/script>/g, "")
    .replace(/<link rel="modulepreload"[^>]*>/g, "")
    .replace(/<link rel="preload"[^>]*as="font"[^>]*>/g, "")
    .replace(/\b(href|src)="(\/(?!\/)[^"]*)"/g, (_m, attr: string, url: string) => `${attr}="${fix(url)}"`);
}

/** A stylesheet of the folder copy: font URLs as data: URLs, other root-absolute URLs relative. */
function inlineFonts(css: string): string {
  return css
    .replace(/url\(\/(assets\/[^)]+\.woff2)\)/g, (_m, font: string) => {
      const data = readFileSync(join(SITE, font)).toString("base64");
      return `url(data:font/woff2;base64,${data})`;
    })
    .replace(/url\(\/assets\//g, "url(./");
}

/** Writes the folder copy of the built site. */
function writeFolderCopy(): void {
  rmSync(FOLDER, { recursive: true, force: true });
  cpSync(SITE, FOLDER, { recursive: true });
  for (const file of files(FOLDER)) {
    const path = join(FOLDER, file);
    if (file.startsWith("api/")) continue; // TypeDoc writes relative URLs already
    if (file.endsWith(".html")) writeFileSync(path, relativizePage(readFileSync(path, "utf8"), file));
    // Browsers fetch fonts in CORS mode, which file:// cannot satisfy, so the stylesheets carry them
    // inline; other root-absolute URLs become relative to assets/, where the stylesheets live.
    else if (file.endsWith(".css")) writeFileSync(path, inlineFonts(readFileSync(path, "utf8")));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildSite();
  if (!existsSync(join(API, "index.html"))) throw new Error(`${API}/index.html is missing: run bash scripts/typedoc.sh first`);
  cpSync(API, join(SITE, "api"), { recursive: true });
  writeFolderCopy();
  console.log(
    `docs site: ${files(SITE).filter((f) => f.endsWith(".html") && !f.startsWith("api/")).length} pages in .tmp/docs-site, folder copy in .tmp/docs-site-folder`,
  );
}
