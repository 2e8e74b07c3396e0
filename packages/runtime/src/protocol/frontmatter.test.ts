// The hand-written SKILL.md frontmatter reader against the `yaml` package (a full YAML 1.2
// parser): on every document of the supported subset both give the same value; outside it ours
// refuses with the line instead of guessing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseFrontmatter } from "./frontmatter.js";

const doc = (yaml: string) => `---\n${yaml}\n---\n\n# Body\n`;
const ours = (yaml: string) => {
  const r = parseFrontmatter(doc(yaml));
  if (!r.ok) throw new Error(r.message);
  return JSON.parse(JSON.stringify(r.value));
};

const CORPUS = [
  "name: pdf-processing\ndescription: Extract, fill, and assemble PDF documents",
  "name: refunds\ndescription: 'It''s policy: refunds'\nlicense: Apache-2.0",
  'name: x\ndescription: "tab\\there, quote \\" and unicode \\u00e9"',
  "name: x\ndescription: >\n  Folded text\n  on two lines\n\n  and a paragraph\nnext: 1",
  "name: x\ndescription: |\n  Literal\n    indented\n  text\nafter: true",
  "name: x\ndescription: |-\n  no final newline\n",
  "name: x\ndescription: d # a comment\nmetadata:\n  version: 2.1\n  author: someone\n  nested:\n    deep: null\n    flag: false",
  "name: x\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(git:*)\ntags: [a, 'b c', 3]",
  "name: x\ndescription: d\nlist:\n- one\n- two\nempty:\nnum: -12\nfloat: 1.5e3\ntilde: ~",
  "name: x\ndescription: a plain scalar\n  that continues\nz: 0",
  '"quoted key": v\nname: x\ndescription: "multi: colon"',
];

describe("SKILL.md frontmatter", () => {
  it.each(CORPUS)("reads %j as the yaml package does", (yaml) => {
    expect(ours(yaml)).toEqual(parse(yaml));
  });

  it("gives the body after the frontmatter", () => {
    const r = parseFrontmatter(doc("name: a\ndescription: b"));
    expect(r.ok && r.body).toBe("\n# Body\n");
  });

  it.each([
    ["no frontmatter", "# Title\n", /does not begin/],
    ["unclosed", "---\nname: a\n", /no closing/],
    ["anchor", doc("name: &n a\ndescription: *n"), /line 2: anchors/],
    ["flow mapping", doc("name: a\nmeta: {a: 1}"), /line 3: flow mappings/],
    ["duplicate key", doc("name: a\nname: b"), /line 3: duplicate key/],
    ["bad indentation", doc("name: a\n  description: b\n x: 1"), /line/],
    ["not a mapping", doc("- a\n- b"), /not a mapping/],
  ])("refuses %s with where", (_what, text, message) => {
    const r = parseFrontmatter(text);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(message);
  });

  it("agrees with yaml on generated flat frontmatter of plain and quoted strings, numbers and booleans", () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);
    const value = fc.oneof(
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.()-]{0,30}[A-Za-z0-9.)]$/),
      fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
      fc.integer(),
      fc.boolean(),
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, minLength: 1, maxLength: 8 }), (pairs) => {
        const yaml = pairs.map(([k, v]) => `${k}: ${String(v)}`).join("\n");
        expect(ours(yaml)).toEqual(parse(yaml));
      }),
      { numRuns: 300 },
    );
  });
});
