/**
 * The docs site in a real browser (Debian's chromium, driven by playwright-core). The site is built
 * once (scripts/docs-build.ts: VitePress, warnings as errors, plus the TypeDoc API and the folder
 * copy), served from .tmp/docs-site on 127.0.0.1, and crawled from the landing page: every page
 * loads with no console error, every internal link and anchor resolves, nothing is requested from
 * another host (every request is routed; outside ones are recorded and refused), and local search
 * finds "ToolFailure". The folder copy is opened from file:// and must load its styles, navigate and
 * request nothing over the network. Screenshots of the landing page and one guide are kept in
 * .tmp/docs-artefacts/ (ignored by git).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, run } from "../product/support.js";

const CHROMIUM = "/usr/bin/chromium";
const SITE = join(REPO, ".tmp", "docs-site");
const FOLDER = join(REPO, ".tmp", "docs-site-folder");
const ARTEFACTS = join(REPO, ".tmp", "docs-artefacts");
const TYPES: { readonly [ext: string]: string } = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

let server: Server;
let origin: string;
let context: BrowserContext;
let profile: string;
/** Requests to anything but the local server (or file:// in the folder test), refused and kept here. */
const outside: string[] = [];

/**
 * Serves `root` on 127.0.0.1, as any static host would (written here, not a package: a dozen lines
 * for tests that must not hide a missing file behind a fallback). Folders get index.html; anything
 * missing is the site's 404 page with status 404.
 */
function serve(root: string): Promise<Server> {
  const s = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    let file = normalize(join(root, path));
    if (!file.startsWith(root + sep) && file !== root) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    const found = existsSync(file);
    res.writeHead(found ? 200 : 404, { "content-type": TYPES[extname(found ? file : ".html")] ?? "application/octet-stream" });
    res.end(readFileSync(found ? file : join(root, "404.html")));
  });
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

/** Opens `url`, recording console errors, page errors and failed requests while it loads. */
async function visit(url: string): Promise<{ page: Page; errors: string[]; status: number | undefined }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => {
    if (!outside.includes(r.url())) errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ""}`);
  });
  const response = await page.goto(url, { waitUntil: "load" });
  await page.waitForLoadState("networkidle");
  return { page, errors, status: response?.status() };
}

/** The id an anchor names exists in the target HTML file. */
function hasAnchor(file: string, hash: string): boolean {
  const id = decodeURIComponent(hash.slice(1));
  return readFileSync(file, "utf8").includes(`id="${id}"`);
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it)`);
  if (!existsSync(join(REPO, ".tmp", "api-docs", "index.html"))) {
    const typedoc = await run("bash", ["scripts/typedoc.sh"], REPO, 900_000);
    if (typedoc.code !== 0) throw new Error(`scripts/typedoc.sh failed:\n${typedoc.stdout}${typedoc.stderr}`);
  }
  const build = await run(process.execPath, [join(REPO, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/docs-build.ts"], REPO, 900_000);
  if (build.code !== 0) throw new Error(`scripts/docs-build.ts failed:\n${build.stdout}${build.stderr}`);
  server = await serve(SITE);
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  profile = mkdtempSync(join(tmpdir(), "tw-docs-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith("file://") || url.startsWith("data:")) return route.continue();
    outside.push(url);
    return route.abort("blockedbyclient");
  });
  mkdirSync(ARTEFACTS, { recursive: true });
}, 1_200_000);

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
});

describe("the docs site in Chromium, served on 127.0.0.1", () => {
  it("every page loads with no console error, and every internal link and anchor resolves", async () => {
    const queue = ["/index.html"];
    const seen = new Set(queue);
    const broken: string[] = [];
    const errors: string[] = [];
    // Bounded: each page is queued once, and the site has a few dozen.
    while (queue.length > 0 && seen.size < 500) {
      const path = queue.shift() as string;
      const v = await visit(`${origin}${path}`);
      if (v.status !== 200) broken.push(`${path}: status ${v.status}`);
      errors.push(...v.errors.map((e) => `${path}: ${e}`));
      const links = await v.page.$$eval("a[href]", (as) => as.map((a) => (a as HTMLAnchorElement).href));
      await v.page.close();
      for (const link of links) {
        if (!link.startsWith(`${origin}/`)) continue;
        const url = new URL(link);
        const target = join(SITE, decodeURIComponent(url.pathname), url.pathname.endsWith("/") ? "index.html" : "");
        if (!existsSync(target)) {
          broken.push(`${path} → ${url.pathname}`);
          continue;
        }
        if (url.hash.length > 1 && target.endsWith(".html") && !hasAnchor(target, url.hash))
          broken.push(`${path} → ${url.pathname}${url.hash}`);
        const page = url.pathname.endsWith("/") ? `${url.pathname}index.html` : url.pathname;
        if (page.endsWith(".html") && !page.startsWith("/api/") && !seen.has(page)) {
          seen.add(page);
          queue.push(page);
        }
      }
    }
    expect(broken, broken.join("\n")).toEqual([]);
    expect(errors, errors.join("\n")).toEqual([]);
    // The crawl reached the pages the sidebar promises, and the API reference.
    for (const p of ["/getting-started/from-mcp-json.html", "/guides/servers.html", "/reference/failures.html", "/troubleshooting.html"])
      expect(seen).toContain(p);
    expect(existsSync(join(SITE, "api", "index.html"))).toBe(true);
    expect(outside, outside.join("\n")).toEqual([]);
  });

  it("search finds ToolFailure", async () => {
    const v = await visit(`${origin}/index.html`);
    await v.page.locator(".VPNavBarSearch button").first().click();
    const input = v.page.locator(".VPLocalSearchBox input");
    await input.fill("ToolFailure");
    const results = v.page.locator(".VPLocalSearchBox .results .result");
    await results.first().waitFor({ state: "visible" });
    // Each result links to the section of a page whose text holds the term.
    const hrefs = await results.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).getAttribute("href") ?? ""));
    expect(hrefs.length).toBeGreaterThan(0);
    expect(hrefs.some((h) => h.startsWith("/guides/failures.html"))).toBe(true);
    for (const h of hrefs) {
      const file = join(SITE, h.split("#")[0] as string);
      expect(readFileSync(file, "utf8"), h).toContain("ToolFailure");
    }
    await v.page.close();
    expect(v.errors).toEqual([]);
  });

  it("keeps screenshots of the landing page and a guide", async () => {
    for (const [path, name] of [
      ["/index.html", "landing.png"],
      ["/guides/servers.html", "guide-servers.png"],
    ] as const) {
      const v = await visit(`${origin}${path}`);
      const file = join(ARTEFACTS, name);
      await v.page.screenshot({ path: file, fullPage: name === "landing.png" });
      await v.page.close();
      expect(statSync(file).size).toBeGreaterThan(10_000);
      expect(v.errors).toEqual([]);
    }
  });
});

describe("the folder copy, opened from file://", () => {
  it("loads its styles, navigates by its links, and makes no network request", async () => {
    const requests: string[] = [];
    const index = pathToFileURL(join(FOLDER, "index.html")).href;
    const v = await visit(index);
    v.page.on("request", (r) => requests.push(r.url()));
    // The theme's stylesheet applied: the nav bar is laid out by it.
    expect(await v.page.locator(".VPNav").evaluate((e) => getComputedStyle(e).position)).not.toBe("static");
    await v.page.locator("a.VPButton", { hasText: "Start from your mcp.json" }).click();
    await v.page.waitForLoadState("load");
    expect(v.page.url()).toBe(pathToFileURL(join(FOLDER, "getting-started", "from-mcp-json.html")).href);
    expect(await v.page.locator("h1").first().textContent()).toContain("From an existing mcp.json");
    // A nav bar link from a nested page leads to the right file.
    await v.page.locator(".VPNavBarMenu a", { hasText: "Troubleshooting" }).first().click();
    await v.page.waitForLoadState("load");
    expect(v.page.url()).toBe(pathToFileURL(join(FOLDER, "troubleshooting.html")).href);
    await v.page.close();
    expect(v.errors, v.errors.join("\n")).toEqual([]);
    expect(requests.filter((u) => !u.startsWith("file://"))).toEqual([]);
  });

  it("every relative link of every page names a file that exists", () => {
    const broken: string[] = [];
    const pages = readdirRecursive(FOLDER).filter((f) => f.endsWith(".html") && !f.startsWith(`api${sep}`));
    expect(pages.length).toBeGreaterThan(20);
    for (const page of pages) {
      const html = readFileSync(join(FOLDER, page), "utf8");
      for (const m of html.matchAll(/\b(?:href|src)="([^"#?]+)[^"]*"/g)) {
        const url = m[1] as string;
        if (/^[a-z]+:/.test(url)) continue;
        if (url.startsWith("/")) broken.push(`${page}: root-absolute ${url}`);
        else if (!existsSync(join(FOLDER, page, "..", decodeURIComponent(url)))) broken.push(`${page}: ${url}`);
      }
    }
    expect(broken, broken.join("\n")).toEqual([]);
  });
});

/** Every file under `dir`, relative to it. */
function readdirRecursive(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}
