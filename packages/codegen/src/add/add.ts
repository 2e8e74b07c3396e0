/**
 * `toolwright add <server>`: inserts a server from an `mcp.json` and its toolset into an existing
 * design through the file's AST. Only text is inserted; the user's comments and formatting stay
 * byte for byte. With `inline`, the toolset's tools are written as DSL builder code from the
 * design's lock (or, without one, from the live server). Nothing is written on any error, and an
 * existing declaration of the server is replaced only with `force`.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ExternalServerDecl } from "@toolwright/dsl";
import { mcpJson } from "@toolwright/dsl";
import { FileError } from "../errors.js";
import { findMcpJson } from "../init/init.js";
import { mcpJsonCall, quoted, serverExpression, serverIdentifier, toolsetExpression } from "../init/snippets.js";
import { designLabel } from "../load/design-label.js";
import { knownMcpJsonFiles, readMcpJson } from "../mcp-json/read-mcp-json.js";
import { pullServer } from "../pull/pull.js";
import { type LockedServer, readLock } from "../resolve/lock.js";
import { writeFileAtomic } from "../write.js";
import { appendItems, applyInsertions, designArray, designShape, type Insertion, parseDesign } from "./design-edit.js";
import { inlineTools } from "./inline-tools.js";

/** Options for `runAdd`. */
export interface AddOptions {
  readonly server: string;
  readonly cwd?: string;
  /** The design to edit (default `design.ts`). */
  readonly design?: string;
  /** The `mcp.json` holding the server (a path or `project`, `cursor`, `vscode`, `claude-code`, `claude`). */
  readonly from?: string;
  /** Write the pulled tools as DSL code instead of reading them from the lock at gen time. */
  readonly inline?: boolean;
  readonly force?: boolean;
  /** For `inline` without a lock entry: time allowed to connect and list tools. */
  readonly timeoutMs?: number;
}

/** What `add` did. */
export interface AddSummary {
  readonly design: string;
  readonly server: string;
  readonly from: string;
  readonly inline: boolean;
  /** Inline tools written, and where the catalogue came from. */
  readonly tools?: number;
  readonly catalogue?: "lock" | "live";
  /** True when an existing declaration of the server was replaced (`force`). */
  readonly replaced: boolean;
}

/** The `mcp.json` files the design already points at, then the well-known ones. */
async function candidateFiles(shape: Awaited<ReturnType<typeof designShape>>, designDir: string, cwd: string): Promise<string[]> {
  const { Node, SyntaxKind } = await import("ts-morph");
  const out: string[] = [];
  for (const call of shape.file.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    if (call.getExpression().getText() !== shape.local("mcpJson")) continue;
    const arg = call.getArguments()[0];
    const file = arg === undefined ? ".toolwright/mcp.json" : Node.isStringLiteral(arg) ? arg.getLiteralValue() : undefined;
    if (file !== undefined) out.push(resolve(designDir, file));
  }
  for (const k of knownMcpJsonFiles(cwd)) out.push(k.path);
  return [...new Set(out)];
}

/** Adds the server; returns what was done. Throws `FileError` (or the manager's `McpConfigError`, a `PullError`) and writes nothing then. */
export async function runAdd(options: AddOptions): Promise<AddSummary> {
  const cwd = options.cwd ?? process.cwd();
  const designPath = resolve(cwd, options.design ?? "design.ts");
  const label = designLabel(designPath, cwd);
  const designDir = dirname(designPath);
  if (!existsSync(designPath)) throw new FileError(label, "file not found (write a starter design with toolwright init)");
  const text = readFileSync(designPath, "utf8");
  const shape = await designShape(await parseDesign(text, label), label);
  const { quote, semicolon, eol } = shape.style;
  const name = options.server;

  // The mcp.json holding the server: --from, else the files the design uses, else the well-known ones.
  let source: string | undefined;
  if (options.from !== undefined) {
    source = findMcpJson(cwd, options.from);
    const parsed = readMcpJson(source, designLabel(source, cwd));
    if (!Object.hasOwn(parsed.servers, name)) {
      const have = Object.keys(parsed.servers);
      throw new FileError(parsed.file, `no server ${JSON.stringify(name)} (has: ${have.join(", ") || "none"})`);
    }
  } else {
    const looked: string[] = [];
    for (const file of await candidateFiles(shape, designDir, cwd)) {
      looked.push(designLabel(file, cwd));
      if (!existsSync(file)) continue;
      if (Object.hasOwn(readMcpJson(file, designLabel(file, cwd)).servers, name)) {
        source = file;
        break;
      }
    }
    if (source === undefined)
      throw new FileError("mcp.json", `no server ${JSON.stringify(name)} in ${looked.join(", ")}; pass --from <file>`);
  }
  const fromLabel = designLabel(source, cwd).startsWith("..") ? source : designLabel(source, cwd);

  const existing = shape.serverDeclaration(name);
  if (existing && !options.force) {
    throw new FileError(
      `${label}:${existing.line}`,
      `already declares server ${JSON.stringify(name)}; pass --force to replace its declaration`,
    );
  }
  const id = existing?.identifier ?? serverIdentifier(name, shape.taken);
  const call = mcpJsonCall(designDir, cwd, source, undefined, quote, shape.local);
  const serverText = serverExpression(name, call, quote, shape.local);
  const edits: Insertion[] = [];
  const declare = (ident: string, init: string) =>
    `${eol}${eol}${shape.declarationPoint.exported ? "export " : ""}const ${ident} = ${init}${semicolon}`;
  const uses = new Set(["externalServer", "mcpJson", "toolset"]);

  let toolsetElement = toolsetExpression(name, id, quote, shape.local);
  let tools: number | undefined;
  let catalogue: AddSummary["catalogue"];
  let declarations = existing ? "" : declare(id, serverText);
  if (existing) edits.push({ at: existing.call.start, end: existing.call.end, text: serverText });
  if (options.inline) {
    const locked = readLock(designPath)?.servers[name];
    let entry: LockedServer;
    if (locked) {
      entry = locked;
      catalogue = "lock";
    } else {
      const decl: ExternalServerDecl = { kind: "external-server", name, connection: mcpJson(source), overrides: [] };
      entry = (await pullServer(decl, { file: label, designPath, cwd }, options.timeoutMs ?? 20_000)).entry;
      catalogue = "live";
    }
    const listed = entry.tools;
    const body = inlineTools(listed, eol, shape.local, entry);
    for (const u of body.uses) uses.add(u);
    uses.add("fromExternalMCP");
    tools = listed.length;
    const toolsetId = serverIdentifier(`${name}-toolset`, new Set([...shape.taken, id]));
    declarations += declare(
      toolsetId,
      `${shape.local("toolset")}(${quoted(name, quote)}, ${shape.local("fromExternalMCP")}(${quoted(name, quote)}), ${body.code})`,
    );
    toolsetElement = toolsetId;
  } else uses.add("fromMCP");
  if (declarations) edits.push({ at: shape.declarationPoint.at, text: declarations });

  const toolsets = await designArray(shape, "toolsets", label);
  // A toolset already on this server (`fromMCP(memory)` in the array or in a constant) is kept, or replaced by --inline.
  const { SyntaxKind } = await import("ts-morph");
  const fromServer = (node: import("ts-morph").Node) =>
    [node, ...node.getDescendantsOfKind(SyntaxKind.CallExpression)].some(
      (c) =>
        c.isKind(SyntaxKind.CallExpression) &&
        c.getExpression().getText() === shape.local("fromMCP") &&
        c.getArguments()[0]?.getText() === id,
    );
  const using = existing ? toolsets?.getElements().find((e) => fromServer(e) || e.getText() === id) : undefined;
  const usedElsewhere = existing !== undefined && !using && fromServer(shape.file);
  if (using && options.inline) edits.push({ at: using.getStart(), end: using.getEnd(), text: toolsetElement });
  else if (!using && !(usedElsewhere && !options.inline)) {
    if (toolsets) edits.push(appendItems(text, toolsets, [toolsetElement], eol));
    else edits.push(appendItems(text, shape.designObject, [`toolsets: [${toolsetElement}]`], eol));
  }
  if (options.inline) {
    // The inline toolset names the server by name; listing the declaration gives gen its connection.
    const servers = await designArray(shape, "servers", label);
    if (!servers) edits.push(appendItems(text, shape.designObject, [`servers: [${id}]`], eol));
    else if (!servers.getElements().some((e) => e.getText() === id)) edits.push(appendItems(text, servers, [id], eol));
  }
  edits.unshift(...shape.importEdits([...uses].sort()));

  const next = applyInsertions(text, edits);
  // The edited file must still parse; if not, this is our bug and the user's file stays as it was.
  await parseDesign(next, label);
  writeFileAtomic(designPath, next);
  return {
    design: label,
    server: name,
    from: fromLabel,
    inline: options.inline === true,
    ...(tools === undefined || catalogue === undefined ? {} : { tools, catalogue }),
    replaced: existing !== undefined,
  };
}

/** `toolwright add: server "memory" from .toolwright/mcp.json added to design.ts; next: toolwright pull design.ts`. */
export function addSummaryLine(s: AddSummary): string {
  const what = s.inline ? ` with ${s.tools} tools inline (from the ${s.catalogue === "lock" ? "lock" : "live server"})` : "";
  const next = s.inline ? `toolwright gen ${s.design} --out src/gen` : `toolwright pull ${s.design}`;
  return `toolwright add: server ${JSON.stringify(s.server)} from ${s.from} ${s.replaced ? "replaced in" : "added to"} ${s.design}${what}; next: ${next}`;
}
