/**
 * `toolwright init`: writes a starter design from an existing `mcp.json` (the project's own,
 * Cursor's, VS Code's, Claude Code's or Claude Desktop's). The file is built with ts-morph: one
 * `externalServer(name, mcpJson(...))` per server and one toolset using it, so each server stays
 * declared once, in the `mcp.json`. An existing design is never overwritten without `force`.
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { docName, docText } from "../emit/literal.js";
import { FileError } from "../errors.js";
import { designLabel } from "../load/design-label.js";
import { knownMcpJsonFiles, readMcpJson } from "../mcp-json/read-mcp-json.js";
import { writeFileAtomic } from "../write.js";
import {
  checkConfigName,
  DSL_IMPORTS,
  mcpJsonCall,
  mcpJsonLabel,
  serverExpression,
  serverIdentifier,
  toolsetExpression,
} from "./snippets.js";

/** Options for `runInit`. */
export interface InitOptions {
  readonly cwd?: string;
  /** The design to write (default `design.ts`). */
  readonly design?: string;
  /** An `mcp.json` path, or `project`, `cursor`, `vscode`, `claude-code`, `claude`. Default: the first that exists. */
  readonly from?: string;
  readonly force?: boolean;
  readonly env?: { readonly [key: string]: string | undefined };
}

/** What `init` did. */
export interface InitSummary {
  readonly design: string;
  readonly from: string;
  readonly servers: readonly string[];
  /** True when an existing design was replaced (`force`). */
  readonly replaced: boolean;
}

/** Finds the `mcp.json` to start from. Throws `FileError` naming what was looked for. */
export function findMcpJson(cwd: string, from: string | undefined, env: InitOptions["env"] = process.env): string {
  const known = knownMcpJsonFiles(cwd, env);
  if (from !== undefined) {
    const byKind = known.find((k) => k.kind === from);
    const path = byKind ? byKind.path : resolve(cwd, from);
    if (!existsSync(path)) throw new FileError(designLabel(path, cwd) || path, "file not found");
    return path;
  }
  const found = known.find((k) => existsSync(k.path));
  if (!found) {
    const looked = known.map((k) => designLabel(k.path, cwd)).join(", ");
    throw new FileError("mcp.json", `none found (looked for ${looked}); pass --from <file>`);
  }
  return found.path;
}

/** The starter design's text for these servers, built and formatted with ts-morph. */
export async function starterDesign(
  designPath: string,
  projectDir: string,
  mcpJsonPath: string,
  servers: readonly string[],
  fromLabel: string,
  env: InitOptions["env"] = process.env,
): Promise<string> {
  const { IndentationText, Project, QuoteKind, VariableDeclarationKind } = await import("ts-morph");
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: { quoteKind: QuoteKind.Double, indentationText: IndentationText.TwoSpaces },
  });
  const file = project.createSourceFile("/design.ts", "");
  file.addImportDeclaration({ namedImports: [...DSL_IMPORTS], moduleSpecifier: "@toolwright/dsl" });
  const taken = new Set<string>(DSL_IMPORTS);
  const ids: string[] = [];
  for (const name of servers) {
    const id = serverIdentifier(name, taken);
    taken.add(id);
    ids.push(id);
    file.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [`Server ${docName(name)}: its connection is read from ${docText(fromLabel)} (pull, gen and the manager use the same entry).`],
      declarations: [
        {
          name: id,
          initializer: serverExpression(
            name,
            mcpJsonCall(dirname(designPath), projectDir, mcpJsonPath, undefined, '"', undefined, env),
            '"',
          ),
        },
      ],
    });
  }
  file.addExportAssignment({
    isExportEquals: false,
    expression: (w) => {
      w.write("design(").inlineBlock(() => {
        w.write("toolsets: [").newLine();
        w.indent(() => {
          servers.forEach((name, i) => {
            w.write(`${toolsetExpression(name, ids[i]!, '"')},`).newLine();
          });
        });
        w.write("],");
      });
      w.write(")");
    },
  });
  const designName = designLabel(designPath, dirname(designPath));
  file.insertText(
    0,
    `/**\n * ${docText(`Starter design written by \`toolwright init\` from ${fromLabel}.`)}\n * ${docText(`Next: \`toolwright pull ${designName}\`, then \`toolwright gen ${designName} --out src/gen\`.`)}\n */\n`,
  );
  file.formatText({ indentSize: 2, convertTabsToSpaces: true });
  const text = file.getFullText();
  return text.endsWith("\n") ? text : `${text}\n`;
}

/** Writes the starter design. Throws `FileError` (no mcp.json, no servers, existing design) or the manager's `McpConfigError`. */
export async function runInit(options: InitOptions = {}): Promise<InitSummary> {
  const cwd = options.cwd ?? process.cwd();
  const designPath = resolve(cwd, options.design ?? "design.ts");
  const label = designLabel(designPath, cwd);
  const replaced = existsSync(designPath);
  if (replaced && !options.force) throw new FileError(label, "already exists; pass --force to overwrite it");
  const source = findMcpJson(cwd, options.from, options.env);
  const fromLabel = designLabel(source, cwd).startsWith("..") ? source : designLabel(source, cwd);
  const parsed = readMcpJson(source, fromLabel);
  const servers = Object.keys(parsed.servers);
  for (const name of servers) checkConfigName(fromLabel, name);
  if (servers.length === 0) throw new FileError(fromLabel, "lists no servers; add one under mcpServers (or servers for VS Code)");
  // The design names the file as anyone can find it (`claude-desktop config`, `~/...`), never this machine's home path.
  const env = options.env ?? process.env;
  const text = await starterDesign(designPath, cwd, source, servers, mcpJsonLabel(cwd, source, env), env);
  writeFileAtomic(designPath, text, { within: cwd });
  return { design: label, from: fromLabel, servers, replaced };
}

/** `toolwright init: wrote design.ts with 2 servers (memory, everything) from .toolwright/mcp.json`. */
export function initSummaryLine(s: InitSummary): string {
  const n = s.servers.length;
  return `toolwright init: ${s.replaced ? "replaced" : "wrote"} ${s.design} with ${n} server${n === 1 ? "" : "s"} (${s.servers.join(", ")}) from ${s.from}; next: toolwright pull ${s.design}`;
}
