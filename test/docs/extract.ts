/**
 * Reads the fenced code blocks of the Markdown pages (docs/ and the README), for the tests that
 * compile the TypeScript samples and follow the getting-started page line by line.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { REPO } from "../product/support.js";

/** One fenced block: its language, the file name in `[brackets]` after it, its text and where it starts. */
export interface Block {
  readonly lang: string;
  readonly name: string | undefined;
  readonly code: string;
  /** 1-based line of the first line of code in the page. */
  readonly line: number;
}

/** The fenced blocks of `markdown`, in order. */
export function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```([\w-]+)(?:\s+\[([^\]]+)\])?\s*$/.exec(lines[i] ?? "");
    if (open === null) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? "")) end++;
    if (end >= lines.length) throw new Error(`unclosed code block at line ${i + 1}`);
    blocks.push({ lang: open[1] ?? "", name: open[2], code: `${lines.slice(start, end).join("\n")}\n`, line: start + 1 });
    i = end;
  }
  return blocks;
}

/** The pages whose samples are checked: README.md and every .md under docs/, as repository paths. */
export function pages(): string[] {
  const docs = join(REPO, "docs");
  const found = readdirSync(docs, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".md") && !e.parentPath.includes(`${sep}.vitepress`))
    .map((e) => relative(REPO, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort();
  return ["README.md", ...found];
}

/** The text of a repository file. */
export function readPage(page: string): string {
  return readFileSync(join(REPO, page), "utf8");
}

/** The command lines of a ```bash block, comments and blank lines dropped. */
export function commandLines(block: Block): string[] {
  return block.code
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}
