/**
 * Text is data in the code-mode API (issue 27, item 1): hostile toolset and tool names, titles,
 * descriptions, field names, field descriptions, enum values and examples never break out of the
 * declarations a model programs against. Every declaration text (the whole namespace and each
 * tool's detail) parses, holds no injected code, declares exactly one namespace whose functions are
 * exactly the bindings, and compiles without a diagnostic in the code-mode type checker.
 */
import { createTypeChecker } from "@toolwright/code-mode";
import { design, fromExternalMCP, object, string, toolset } from "@toolwright/dsl";
import fc from "fast-check";
import { ts } from "ts-morph";
import { describe, expect, it } from "vitest";
import { buildCodeModeApi } from "../../packages/codegen/src/plugins/code-mode.js";
import { resolveDesign } from "../../packages/codegen/src/resolve/resolve.js";
import { assertDataOnly, hostileName, hostileText } from "../support/hostile-text.js";

const texts = fc.record({
  toolset: hostileName,
  tool: hostileName,
  other: hostileName,
  title: hostileText,
  description: hostileText,
  key: hostileName,
  fieldDescription: hostileText,
  value: hostileText,
});

type Texts = typeof texts extends fc.Arbitrary<infer R> ? R : never;

function hostileDesign(t: Texts) {
  const input = object({ [t.key]: string().describe(t.fieldDescription).default(t.value) });
  const local = toolset(t.toolset, fromExternalMCP("inline"), (b) => {
    b.tool(t.tool, { title: t.title, description: t.description, input, output: object({ [t.key]: string() }) });
    b.tool(`${t.other}-2`, { description: `${t.description}*/`, input: object({}) });
  });
  return design({ toolsets: [local] });
}

/** The names one `declare namespace` declares, by kind; throws when anything else is at the top level. */
function declared(text: string, namespace: string, label: string): { functions: string[]; types: string[] } {
  const file = assertDataOnly(text, label);
  expect(file.statements, label).toHaveLength(1);
  const ns = file.statements[0]!;
  if (!ts.isModuleDeclaration(ns) || ns.body === undefined || !ts.isModuleBlock(ns.body))
    throw new Error(`${label}: not one namespace\n${text}`);
  expect(ns.name.getText(file)).toBe(namespace);
  expect(ns.modifiers?.map((m) => m.kind)).toEqual([ts.SyntaxKind.DeclareKeyword]);
  const functions: string[] = [];
  const types: string[] = [];
  for (const s of ns.body.statements) {
    if (ts.isFunctionDeclaration(s) && s.name !== undefined && s.body === undefined) functions.push(s.name.text);
    else if ((ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name !== undefined) types.push(s.name.text);
    else throw new Error(`${label}: unexpected statement ${ts.SyntaxKind[s.kind]}\n${text}`);
  }
  return { functions, types };
}

describe("code-mode declarations hold hostile text as data", () => {
  it("parse, declare exactly the bindings, and type-check", async () => {
    let generated = 0;
    await fc.assert(
      fc.asyncProperty(texts, async (t) => {
        let ir: ReturnType<typeof resolveDesign>;
        try {
          ir = resolveDesign(hostileDesign(t), { file: "design.ts" });
        } catch (error) {
          // The DSL and the resolver refuse some names, always with a clear error (text-is-data.test.ts checks which).
          expect((error as Error).message).not.toMatch(/internal|TypeError|Cannot read/);
          return;
        }
        const api = await buildCodeModeApi(ir.toolsets[0]!);
        generated++;
        const whole = declared(api.declarations, api.namespace, "declarations");
        expect(whole.functions.sort()).toEqual(Object.keys(api.bindings).sort());
        expect(Object.values(api.bindings).sort()).toEqual([t.tool, `${t.other}-2`].sort());
        for (const [name, detail] of Object.entries(api.details))
          expect(declared(detail.text, api.namespace, name).functions).toEqual([name]);
        for (const entry of api.index) expect(entry.line).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
        assertDataOnly(api.prelude, "prelude");
        const checker = createTypeChecker([api]);
        try {
          expect(checker.declarationDiagnostics()).toEqual([]);
          // Every function is callable by the name the bindings give it.
          const calls = Object.keys(api.bindings).map((n) => `await ${api.namespace}.${n}({} as never);`);
          const result = checker.check(calls.join("\n"));
          expect(result.ok, result.ok ? "" : result.failure.message).toBe(true);
        } finally {
          checker.dispose();
        }
      }),
      { numRuns: 40 },
    );
    expect(generated).toBeGreaterThanOrEqual(5);
  }, 600_000);
});
