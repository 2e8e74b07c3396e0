/**
 * The docs site (VitePress). The sidebar is read from the files: every `.md` under a section's
 * folder is listed, titled by its first `# ` heading, in the order below and then by name, so a
 * guide added by another change appears without editing this file. The site is built for a
 * server at "/"; scripts/docs-build.ts derives the copy that opens from a folder
 * (docs/contributing/docs.md says how and why).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type DefaultTheme, defineConfig } from "vitepress";

const DOCS = join(dirname(fileURLToPath(import.meta.url)), "..");
const REPO = join(DOCS, "..");

/** The order pages are listed in; a page not named here comes after these, by file name. */
const ORDER: { readonly [section: string]: readonly string[] } = {
  "getting-started": ["from-mcp-json", "from-scratch", "ci"],
  guides: [
    "design-dsl",
    "generated-code",
    "callers",
    "failures",
    "manager",
    "model-sdks",
    "code-mode",
    "token-economy",
    "catalogue-security",
    "servers",
    "durable-runs",
    "test-kit",
    "many-users",
    "oauth",
  ],
  reference: ["cli", "mcp-json", "failures", "api"],
  contributing: ["docs", "testing", "design-notes"],
};

/** The first `# ` heading of a Markdown file, or its name. */
function titleOf(file: string): string {
  const heading = /^# (.+)$/m.exec(readFileSync(file, "utf8"))?.[1];
  return (heading ?? file.replace(/^.*\//, "").replace(/\.md$/, "")).replace(/`/g, "");
}

/** The sidebar items of one folder of docs/, from the files it holds. */
function section(folder: string, extra: readonly DefaultTheme.SidebarItem[] = []): DefaultTheme.SidebarItem[] {
  const dir = join(DOCS, folder);
  if (!existsSync(dir)) return [...extra];
  const order = ORDER[folder] ?? [];
  const names = readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .map((f) => f.slice(0, -3))
    .sort((a, b) => rank(order, a) - rank(order, b) || a.localeCompare(b));
  return [...names.map((n) => ({ text: titleOf(join(dir, `${n}.md`)), link: `/${folder}/${n}` })), ...extra];
}

function rank(order: readonly string[], name: string): number {
  const i = order.indexOf(name);
  return i === -1 ? order.length : i;
}

const sidebar: DefaultTheme.Sidebar = [
  { text: "Getting started", items: section("getting-started") },
  { text: "Guides", items: section("guides", [{ text: "Performance", link: "/performance" }]) },
  { text: "Reference", items: section("reference") },
  { text: "Troubleshooting", items: [{ text: "The first ten errors", link: "/troubleshooting" }] },
  {
    text: "Design notes",
    collapsed: true,
    items: [...section("contributing"), { text: "Architecture", link: "/architecture" }, { text: "Code generation", link: "/codegen" }],
  },
];

const version = (JSON.parse(readFileSync(join(REPO, "packages", "runtime", "package.json"), "utf8")) as { version: string }).version;

export default defineConfig({
  title: "Toolwright",
  description: "Typed, validated MCP tools whose failures a planner can act on",
  lang: "en",
  base: "/",
  outDir: join(REPO, ".tmp", "docs-site"),
  cacheDir: join(REPO, ".tmp", "vitepress-cache"),
  srcExclude: ["**/README.md"],
  cleanUrls: false,
  lastUpdated: false,
  // Links into the TypeDoc output (copied into the site by scripts/docs.sh) are not VitePress pages.
  ignoreDeadLinks: [/^\/api\//],
  head: [["meta", { name: "generator", content: `Toolwright ${version} docs` }]],
  markdown: { lineNumbers: false },
  themeConfig: {
    nav: [
      { text: "Get started", link: "/getting-started/from-mcp-json" },
      { text: "Guides", link: "/guides/design-dsl" },
      { text: "Reference", link: "/reference/cli" },
      { text: "Troubleshooting", link: "/troubleshooting" },
    ],
    sidebar,
    search: { provider: "local" },
    outline: { level: [2, 3] },
    footer: { message: `Toolwright ${version}. MIT licence.` },
  },
  vite: {
    // Nothing is fetched from outside: VitePress's default theme bundles its fonts (Inter) locally.
    build: { chunkSizeWarningLimit: 2000 },
    logLevel: "warn",
  },
});
