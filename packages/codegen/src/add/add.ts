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
import { checkConfigName, mcpJsonCall, serverExpression, serverIdentifier, toolsetExpression } from "../init/snippets.js";
import { designLabel } from "../load/design-label.js";
import { knownMcpJsonFiles, readMcpJson } from "../mcp-json/read-mcp-json.js";
import { serializeLock } from "../pull/lock-format.js";
import { pullServer } from "../pull/pull.js";
import { type LockedServer, lockPathFor, readLock } from "../resolve/lock.js";
import { writeFileAtomic } from "../write.js";
import { appendItems, applyInsertions, designArray, designShape, type Insertion, parseDesign, pruneImports } from "./design-edit.js";
import { acquireEditLock } from "./edit-lock.js";
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

/** Where the design is, resolved once for every attempt. */
interface AddTarget {
  readonly cwd: string;
  readonly designPath: string;
  readonly label: string;
  readonly designDir: string;
}

/** One planned edit: the new text, and a catalogue pulled live that the lock should keep. */
interface AddPlan {
  readonly next: string;
  readonly summary: AddSummary;
  readonly pulled?: LockedServer;
}

/** How often the edit is planned again when the design changed under it (another editor, not another add). */
const MAX_ATTEMPTS = 5;

/** The design's text, or a `FileError` when it is gone. */
function readDesign(target: AddTarget): string {
  if (!existsSync(target.designPath)) throw new FileError(target.label, "file not found (write a starter design with toolwright init)");
  return readFileSync(target.designPath, "utf8");
}

/**
 * Adds the server; returns what was done. Throws `FileError` (or the manager's `McpConfigError`, a
 * `PullError`) and writes nothing then. Concurrent runs on one design take turns through an edit
 * lock, and the design is re-read right before it is replaced: an edit planned on text that has
 * changed since is planned again on the new text (a few times), never written over it.
 */
export async function runAdd(options: AddOptions): Promise<AddSummary> {
  const cwd = options.cwd ?? process.cwd();
  const designPath = resolve(cwd, options.design ?? "design.ts");
  const target: AddTarget = { cwd, designPath, label: designLabel(designPath, cwd), designDir: dirname(designPath) };
  const live: { entry?: LockedServer } = {};
  // Planned once before taking the lock: bad input fails fast, and a live catalogue is listed without holding other runs up.
  let read = readDesign(target);
  let plan = await planAdd(options, target, read, live);
  const release = await acquireEditLock(designPath, target.label);
  try {
    for (let attempt = 1; ; attempt++) {
      const now = readDesign(target);
      if (now !== read) {
        if (attempt > MAX_ATTEMPTS) {
          throw new FileError(
            target.label,
            `changed by another program while toolwright add was editing it (${MAX_ATTEMPTS} tries); server ${JSON.stringify(options.server)} was not added, run add again`,
          );
        }
        read = now;
        plan = await planAdd(options, target, read, live);
        continue;
      }
      const lock = plan.pulled ? lockWith(designPath, options.server, plan.pulled) : undefined;
      writeDesign(target, read, plan.next);
      if (lock) writeFileAtomic(lockPathFor(designPath), lock, { within: cwd });
      return plan.summary;
    }
  } finally {
    release();
  }
}

/**
 * Replaces the design with `next` if it still reads `expected`; the edit lock keeps other `add`
 * runs out, this last look catches any other editor. The one place `add` writes the design.
 */
function writeDesign(target: AddTarget, expected: string, next: string): void {
  if (readFileSync(target.designPath, "utf8") !== expected) {
    throw new FileError(target.label, "changed by another program while toolwright add was writing it; nothing was written, run add again");
  }
  writeFileAtomic(target.designPath, next, { within: target.cwd });
}

/** The lock text with a catalogue `add --inline` listed live, so gen and the drift check have it without a pull. */
function lockWith(designPath: string, server: string, entry: LockedServer): string {
  return serializeLock({ ...readLock(designPath)?.servers, [server]: entry });
}

/** Plans the edit of `raw` (the design's text as read); writes nothing. */
async function planAdd(options: AddOptions, target: AddTarget, raw: string, live: { entry?: LockedServer }): Promise<AddPlan> {
  const { cwd, designPath, label, designDir } = target;
  // A byte order mark is kept, but edited around: the parser's offsets do not count it.
  const bom = raw.startsWith("\uFEFF") ? "\uFEFF" : "";
  const text = raw.slice(bom.length);
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
  checkConfigName(fromLabel, name);

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

  const toolsetText = toolsetExpression(name, id, quote, shape.local);
  let toolsetElement = toolsetText;
  let tools: number | undefined;
  let catalogue: AddSummary["catalogue"];
  let pulled: LockedServer | undefined;
  let declarations = existing ? "" : declare(id, serverText);
  if (existing) edits.push({ at: existing.call.start, end: existing.call.end, text: serverText });
  uses.add("fromMCP");

  const toolsets = await designArray(shape, "toolsets", label);
  // A toolset already on this server (`fromMCP(memory)`, or an inlined `fromExternalMCP("memory")` from
  // before, in the array or in a constant the array lists) is kept, or replaced by --inline.
  const { Node, SyntaxKind } = await import("ts-morph");
  const fromServer = (node: import("ts-morph").Node) =>
    [node, ...node.getDescendantsOfKind(SyntaxKind.CallExpression)].some((c) => {
      if (!Node.isCallExpression(c)) return false;
      const callee = c.getExpression().getText();
      const arg = c.getArguments()[0];
      const named = arg !== undefined && Node.isStringLiteral(arg) && arg.getLiteralValue() === name;
      return (
        (callee === shape.local("fromMCP") && (arg?.getText() === id || named)) || (callee === shape.local("fromExternalMCP") && named)
      );
    });
  const constantOf = (e: import("ts-morph").Node) =>
    Node.isIdentifier(e) ? shape.file.getVariableDeclaration(e.getText())?.getInitializer() : undefined;
  let constant: import("ts-morph").Node | undefined;
  const using = existing
    ? toolsets?.getElements().find((e) => {
        constant = constantOf(e);
        return fromServer(e) || e.getText() === id || (constant !== undefined && fromServer(constant));
      })
    : undefined;
  if (!using) constant = undefined;
  const usedElsewhere = existing !== undefined && !using && fromServer(shape.file);

  if (options.inline) {
    const locked = readLock(designPath, lockPathFor(label))?.servers[name];
    let entry: LockedServer;
    if (locked) {
      entry = locked;
      catalogue = "lock";
    } else {
      const decl: ExternalServerDecl = { kind: "external-server", name, connection: mcpJson(source), overrides: [] };
      live.entry ??= (await pullServer(decl, { file: label, designPath, cwd }, options.timeoutMs ?? 20_000)).entry;
      entry = live.entry;
      pulled = entry;
      catalogue = "live";
    }
    const listed = entry.tools;
    const body = inlineTools(listed, eol, shape.local, entry);
    for (const u of body.uses) uses.add(u);
    tools = listed.length;
    // Still `fromMCP`: the inlined tools override the pulled ones of the same name, so the toolset keeps
    // its lock catalogue, drift check and everything else generated for a pulled server.
    const inlined = `${toolsetText.slice(0, -1)}, ${body.code})`;
    if (constant) edits.push({ at: constant.getStart(), end: constant.getEnd(), text: inlined });
    else {
      const toolsetId = serverIdentifier(`${name}-toolset`, new Set([...shape.taken, id]));
      declarations += declare(toolsetId, inlined);
      toolsetElement = toolsetId;
    }
  }
  if (declarations) edits.push({ at: shape.declarationPoint.at, text: declarations });

  if (using && options.inline) {
    if (!constant) edits.push({ at: using.getStart(), end: using.getEnd(), text: toolsetElement });
  } else if (!using && !(usedElsewhere && !options.inline)) {
    if (toolsets) edits.push(appendItems(text, toolsets, [toolsetElement], eol));
    else edits.push(appendItems(text, shape.designObject, [`toolsets: [${toolsetElement}]`], eol));
  }
  edits.unshift(...shape.importEdits([...uses].sort()));

  const edited = applyInsertions(text, edits);
  // The edited file must still parse; if not, this is our bug and the user's file stays as it was.
  // DSL imports only the replaced code used go (a `fromExternalMCP` an old inlined toolset needed).
  const next = bom + (await pruneImports(shape, await parseDesign(edited, label)));
  const summary: AddSummary = {
    design: label,
    server: name,
    from: fromLabel,
    inline: options.inline === true,
    ...(tools === undefined || catalogue === undefined ? {} : { tools, catalogue }),
    replaced: existing !== undefined,
  };
  return { next, summary, ...(pulled ? { pulled } : {}) };
}

/** `toolwright add: server "memory" from .toolwright/mcp.json added to design.ts; next: toolwright pull design.ts`. */
export function addSummaryLine(s: AddSummary): string {
  const what = s.inline ? ` with ${s.tools} tools inline (from the ${s.catalogue === "lock" ? "lock" : "live server"})` : "";
  const next = s.inline ? `toolwright gen ${s.design} --out src/gen` : `toolwright pull ${s.design}`;
  return `toolwright add: server ${JSON.stringify(s.server)} from ${s.from} ${s.replaced ? "replaced in" : "added to"} ${s.design}${what}; next: ${next}`;
}
