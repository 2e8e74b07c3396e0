/**
 * `toolwright add` edits a design by offsets into its text; the offsets must hold whatever the
 * file's encoding details. Generated designs (fast-check) with and without a UTF-8 byte order mark,
 * with CRLF or LF line endings, either quote, with or without semicolons, with non-ASCII comments
 * before and between the edited places, one-line or one-per-line arrays, and servers already
 * declared: `add` (plain and `--inline`) must write a design that loads with the server in it, and
 * keep the mark and the line endings as they were.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { loadDesign } from "../load/load-design.js";

const repo = fileURLToPath(new URL("../../../..", import.meta.url));
const BOM = "\uFEFF";
let root = "";

beforeAll(() => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  root = mkdtempSync(join(repo, ".tmp", "add-bom-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Comment text: any characters (astral ones too), without what would end or break the comment. */
const commentText = fc.string({ unit: "grapheme", maxLength: 12 }).map((s) => s.replace(/\*\/|[\r\n\u2028\u2029]/g, " "));

const designs = fc.record({
  bom: fc.boolean(),
  crlf: fc.boolean(),
  quote: fc.constantFrom('"', "'"),
  semi: fc.boolean(),
  existing: fc.subarray(["alpha", "beta"]),
  comments: fc.array(commentText, { minLength: 3, maxLength: 3 }),
  multiline: fc.boolean(),
  inline: fc.boolean(),
});

type Shape = typeof designs extends fc.Arbitrary<infer T> ? T : never;

function designText(d: Shape): string {
  const q = d.quote;
  const s = d.semi ? ";" : "";
  const ids = d.existing;
  const lines = [
    `/* ${d.comments[0]} */`,
    `import { design, externalServer, fromMCP, mcpJson, toolset } from ${q}@toolwright/dsl${q}${s} // ${d.comments[1]}`,
    "",
    ...ids.map((n) => `const ${n} = externalServer(${q}${n}${q}, mcpJson())${s}`),
    `// ${d.comments[2]}`,
    "",
  ];
  const items = ids.map((n) => `toolset(${q}${n}${q}, fromMCP(${n}))`);
  if (d.multiline) lines.push("export default design({", "  toolsets: [", ...items.map((i) => `    ${i},`), "  ],", `})${s}`, "");
  else lines.push(`export default design({ toolsets: [${items.join(", ")}] })${s}`, "");
  return (d.bom ? BOM : "") + lines.join(d.crlf ? "\r\n" : "\n");
}

const TOOL = {
  name: "note_ü",
  description: "Keeps a note — with “quotes” and 😀",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

/** True when `edited` is `original` with text inserted only: every character kept, in order. */
function insertedInto(original: string, edited: string): boolean {
  let at = 0;
  for (let i = 0; i < edited.length && at < original.length; i++) if (edited[i] === original[at]) at++;
  return at === original.length;
}

let run = 0;

describe("toolwright add on designs with a byte order mark and CRLF", () => {
  it("writes a design that loads with the server, keeping the mark and the line endings", async () => {
    await fc.assert(
      fc.asyncProperty(designs, async (d) => {
        const dir = join(root, `d${run++}`);
        mkdirSync(join(dir, ".toolwright"), { recursive: true });
        const servers = Object.fromEntries(["alpha", "beta", "memory"].map((n) => [n, { command: "node", args: [`${n}.js`] }]));
        writeFileSync(join(dir, ".toolwright", "mcp.json"), JSON.stringify({ mcpServers: servers }));
        if (d.inline) writeFileSync(join(dir, "design.lock.json"), JSON.stringify({ version: 1, servers: { memory: { tools: [TOOL] } } }));
        const original = designText(d);
        writeFileSync(join(dir, "design.ts"), original);
        const err: string[] = [];
        const argv = ["add", "memory", ...(d.inline ? ["--inline"] : [])];
        const code = await main(argv, { stdout: () => {}, stderr: (t) => err.push(t), cwd: dir });
        expect(err.join("\n")).toBe("");
        expect(code).toBe(0);
        const out = readFileSync(join(dir, "design.ts"), "utf8");
        // The mark stays first, once; nothing else of the original moved or changed.
        expect(out.startsWith(BOM)).toBe(d.bom);
        expect(out.split(BOM).length - 1).toBe(d.bom ? 1 : 0);
        expect(insertedInto(original.replace(BOM, ""), out.replace(BOM, ""))).toBe(true);
        if (d.crlf) expect(out.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
        else expect(out).not.toContain("\r");
        const loaded = await loadDesign("design.ts", dir);
        expect(loaded.design.servers.map((x) => x.name).sort()).toEqual([...d.existing, "memory"].sort());
        const memory = loaded.design.toolsets.find((t) => t.name === "memory");
        expect(memory?.provider).toMatchObject({ kind: "mcp", server: "memory" });
        expect(memory?.tools.map((t) => t.name)).toEqual(d.inline ? [TOOL.name] : []);
        if (d.inline) expect(memory?.tools[0]?.description).toBe(TOOL.description);
        rmSync(dir, { recursive: true, force: true });
      }),
      { numRuns: 24 },
    );
  }, 600_000);
});
