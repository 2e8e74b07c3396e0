/**
 * Caller plugin: `<toolset>/caller.gen.ts` with `create<Server>Caller(overrides?)`, built from the
 * design's declaration of the server (inline or an `mcp.json` entry), so the planner starts the
 * same server `pull` and the manager do. No env or header value is ever printed: `${VAR}`
 * references are expanded when the factory runs, literals are passed through by name.
 */
import { EXPAND_ENV_FROM } from "@toolwright/runtime/codegen";
import { fileHeader, type GeneratedFile } from "../emit/generated-file.js";
import { docName, docText, printLiteral, stringLiteral } from "../emit/literal.js";
import type { IrConnection, IrDesign } from "../ir/ir.js";
import type { Plugin } from "./plugin.js";

const REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/;

/**
 * A string, or its run-time expansion when it holds `${VAR}` references. The runtime reads the
 * environment, so generated code names no Node global and compiles with `"types": []`.
 */
function stringOrExpansion(f: GeneratedFile, value: string, where: string, transport: keyof typeof EXPAND_ENV_FROM = "stdio"): string {
  if (!REFERENCE.test(value)) return stringLiteral(value);
  return `${f.importValue("expandProcessEnv", EXPAND_ENV_FROM[transport])}(${stringLiteral(value)}, ${stringLiteral(where)})`;
}

function envDoc(c: IrConnection & { readonly transport: "stdio" }): string {
  const names = c.env.map((e) => e.name);
  const withheld =
    c.withheld.length > 0
      ? ` ${c.withheld.join(", ")} ${c.withheld.length === 1 ? "has" : "have"} a literal value there, not copied here: set ${c.withheld.length === 1 ? "it" : "them"} in the environment or \`overrides.env\`.`
      : "";
  return names.length === 0
    ? "The child sees only the baseline environment (PATH, HOME, locale...)."
    : `The child sees the baseline environment plus ${names.join(", ")}.${withheld}`;
}

/** `era`, `connectTimeoutMs` and `timeoutMs` lines from the entry, in that order. */
function optionLines(c: IrConnection): string[] {
  return Object.entries(c.options).map(([k, v]) => `    ${k}: ${printLiteral(v)},`);
}

function emitStdio(f: GeneratedFile, c: IrConnection & { readonly transport: "stdio" }): void {
  const where = (what: string) => `server ${JSON.stringify(c.server)} ${what}`;
  const env = c.env.map((e) =>
    e.kind === "pass"
      ? stringLiteral(e.name)
      : `${stringLiteral(`${e.name}=`)} + ${stringOrExpansion(f, e.template, where(`env ${e.name}`))}`,
  );
  const Options = f.runtime("StdioCallerOptions");
  const Caller = f.runtime("StdioCaller");
  const create = f.runtime("createStdioCaller");
  f.print(
    "/**",
    ` * Creates the caller for server ${docName(c.server)} as declared in ${docText(c.declaredIn)}. ${docText(envDoc(c))}`,
    " * `overrides` replace single options; `overrides.env` adds entries (`NAME` or `KEY=VALUE`).",
    " */",
    `${f.export("function", c.factoryName)}(overrides: Omit<Partial<${Options}>, "env"> & { readonly env?: readonly string[] } = {}): ${Caller} {`,
    "  const { env = [], ...rest } = overrides;",
    `  return ${create}({`,
    `    name: ${stringLiteral(c.server)},`,
    `    command: ${stringOrExpansion(f, c.command, where("command"))},`,
    `    args: [${c.args.map((a, i) => stringOrExpansion(f, a, where(`args[${i}]`))).join(", ")}],`,
    ...(c.cwd === undefined ? [] : [`    cwd: ${stringOrExpansion(f, c.cwd, where("cwd"))},`]),
    ...optionLines(c),
    "    env: [",
    ...[...env, "...env"].map((e) => `      ${e},`),
    "    ],",
    "    ...rest,",
    "  });",
    "}",
  );
}

function emitHttp(f: GeneratedFile, c: IrConnection & { readonly transport: "http" }): void {
  const Options = f.runtime("HttpCallerOptions");
  const Caller = f.runtime("HttpCaller");
  const create = f.runtime("createHttpCaller");
  const headers = Object.entries(c.headers);
  const withheld =
    c.withheld.length > 0
      ? ` Headers with literal values (${c.withheld.join(", ")}) are not copied here; pass them in \`overrides.headers\`.`
      : "";
  f.print(
    "/**",
    ` * Creates the caller for server ${docName(c.server)} as declared in ${docText(c.declaredIn)}. \`\${VAR}\` in headers is read from the environment at connect time.${docText(withheld)}`,
    " * `overrides` replace single options.",
    " */",
    `${f.export("function", c.factoryName)}(overrides: Partial<${Options}> = {}): ${Caller} {`,
    `  return ${create}({`,
    `    name: ${stringLiteral(c.server)},`,
    `    url: ${stringOrExpansion(f, c.url, `server ${JSON.stringify(c.server)} url`, "http")},`,
    ...(headers.length === 0
      ? []
      : [`    headers: { ${headers.map(([k, v]) => `${stringLiteral(k)}: ${stringLiteral(v)}`).join(", ")} },`]),
    ...optionLines(c),
    ...(c.outbound === undefined ? [] : [`    outbound: ${printLiteral(c.outbound, 4)},`]),
    "    ...overrides,",
    "  });",
    "}",
  );
}

/** Emits `<toolset>/caller.gen.ts` for every toolset whose server the design declares with a connection. */
export const callerPlugin: Plugin = {
  name: "caller",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const c = ts.connection;
      if (!c) continue;
      const f = out.file(`${ts.dirName}/caller.gen.ts`, fileHeader(ir.file, ts.name));
      if (c.transport === "stdio") emitStdio(f, c);
      else emitHttp(f, c);
    }
  },
};
