/**
 * Server scaffold plugin: for each `mcpServer(...)` of the design, `servers/<server>/` holds the
 * tools' types and precompiled validators, and `server.gen.ts` with a typed handler interface (one
 * method per tool: typed payload in, typed result out; one per prompt, resource and template,
 * server-surface.ts), `create<Server>Server(handlers)` (the
 * runtime tool server with input and output decoders) and `serve<Server>Server(handlers, options)`
 * for stdio or streamable HTTP.
 */
import { fileHeader } from "../emit/generated-file.js";
import { docName, docText, printKey, printLiteral } from "../emit/literal.js";
import type { IrDesign, IrMcpServer, IrTool } from "../ir/ir.js";
import type { Plugin } from "./plugin.js";
import { emitServerSurface } from "./server-surface.js";
import { typesPlugin } from "./types.js";
import { validatorsPlugin } from "./validators.js";

/** The dialect every resolved schema is in. */
const DIALECT = "https://json-schema.org/draft/2020-12/schema";

function wireAnnotations(tool: IrTool): { [key: string]: boolean } | undefined {
  const a = tool.annotations;
  if (!a) return undefined;
  const out: { [key: string]: boolean } = {};
  if (a.readOnly !== undefined) out.readOnlyHint = a.readOnly;
  if (a.destructive !== undefined) out.destructiveHint = a.destructive;
  if (a.idempotent !== undefined) out.idempotentHint = a.idempotent;
  if (a.openWorld !== undefined) out.openWorldHint = a.openWorld;
  return Object.keys(out).length > 0 ? out : undefined;
}

function emitServer(ir: IrDesign, server: IrMcpServer, out: Parameters<Plugin["emit"]>[1]): void {
  const s = server.symbols;
  const n = { handlers: s.handlers.name, create: s.create.name, serve: s.serve.name, info: s.info.name, options: s.options.name };
  const ts = server.toolset;
  const f = out.file(s.create.file, fileHeader(ir.file, undefined));
  const rt = f.server;
  const rtType = f.server;
  const CallToolResult = () => rtType("CallToolResult");
  const ToolContext = () => rtType("ToolContext");
  const hasText = ts.tools.some((t) => !t.output);
  const info: [string, unknown][] = [
    ["name", server.name],
    ["version", server.version],
  ];
  if (server.title !== undefined) info.push(["title", server.title]);
  if (server.protocolVersion !== undefined) info.push(["protocolVersion", server.protocolVersion]);
  if (server.instructions !== undefined) info.push(["instructions", server.instructions]);
  f.print(
    `/** Name, version and protocol version of server ${docName(server.name)}, as declared in the design. */`,
    `${f.export("const", n.info)} = {`,
    ...info.map(([k, v]) => `  ${printKey(k)}: ${printLiteral(v, 2)},`),
    "} as const;",
    "",
  );
  const surface = emitServerSurface(f, ts.surface);
  const resultType = (tool: IrTool) => {
    const Result = f.import(tool.symbols.result);
    return tool.output ? `${rtType("StructuredResult")}<${Result}> | ${CallToolResult()}` : `${Result} | ${CallToolResult()}`;
  };
  f.print(
    `/**`,
    ` * ${docText(`The handlers a ${JSON.stringify(server.name)} server implementation provides: one per tool${surface.signatures.length > 0 ? ", prompt, resource and resource template" : ""}. Payloads arrive validated; structured results are validated against the output schema before they are sent. Tools without an output schema may return plain text.${surface.signatures.length > 0 ? " Prompts get their arguments with the required ones checked; template readers get the variables matched from the URI (empty when absent)." : ""}`)}`,
    ` */`,
    `${f.export("interface", n.handlers)} {`,
  );
  for (const tool of ts.tools) {
    const Payload = f.import(tool.symbols.payload);
    const R = resultType(tool);
    const doc = tool.description ?? tool.title ?? `Handles ${JSON.stringify(tool.name)}.`;
    f.print(`  /** ${docText(doc)} */`, `  ${tool.memberName}(payload: ${Payload}, ctx: ${ToolContext()}): ${R} | Promise<${R}>;`);
  }
  f.print(...surface.signatures, "}", "");
  if (hasText) {
    f.print(
      "/** Plain text from a handler becomes one text content block. */",
      `function asResult(value: string | ${CallToolResult()}): ${CallToolResult()} {`,
      `  return typeof value === "string" ? { content: [{ type: "text", text: value }] } : value;`,
      "}",
      "",
    );
  }
  const ToolServerOptions = rtType("ToolServerOptions");
  const createDecoder = () => rt("createDecoder");
  const completes = surface.completions.length > 0;
  if (completes) {
    f.print(
      `/** Completers for \`completion/complete\`, keyed like the handlers: each maps an argument or variable name to the values for what the user typed. */`,
      `${f.export("interface", s.completions.name)} {`,
      ...surface.completions,
      "}",
      "",
    );
  }
  f.print(
    `/** Options for ${n.create}: everything of \`createToolServer\` except the declared name, version and tools${completes ? ", and typed completers" : ""}. */`,
    `${f.export("type", n.options)} = Omit<${ToolServerOptions}, "name" | "version" | "tools">${completes ? ` & { readonly completions?: ${s.completions.name} }` : ""};`,
    "",
    `/** Creates the ${docName(server.name)} tool server from its handlers (serve it with \`serve\`, \`serveStdio\` or \`serveHttp\`). */`,
    `${f.export("function", n.create)}(${ts.tools.length === 0 && surface.options.length === 0 ? "_handlers" : "handlers"}: ${n.handlers}, ${completes ? "{ completions, ...options }" : "options"}: ${n.options} = {}): ${rtType("ToolServer")} {`,
    `  return ${rt("createToolServer")}({`,
    `    ...${n.info},`,
    "    ...options,",
    "    tools: [",
  );
  for (const tool of ts.tools) {
    const Payload = f.import(tool.symbols.payload);
    const fields: [string, unknown][] = [["name", tool.name]];
    if (tool.title !== undefined) fields.push(["title", tool.title]);
    if (tool.description !== undefined) fields.push(["description", tool.description]);
    // Schemas in the IR are normalized to JSON Schema 2020-12; the wire copy says so explicitly.
    fields.push(["inputSchema", { $schema: DIALECT, ...tool.input.json }]);
    if (tool.output) fields.push(["outputSchema", { $schema: DIALECT, ...tool.output.json }]);
    const annotations = wireAnnotations(tool);
    if (annotations) fields.push(["annotations", annotations]);
    if (tool.meta !== undefined) fields.push(["_meta", tool.meta]);
    if (tool.task !== undefined) {
      fields.push(["execution", { taskSupport: tool.task.support }]);
      if (tool.task.start !== "immediate") fields.push(["taskStart", tool.task.start]);
    }
    f.print("      {", ...fields.map(([k, v]) => `        ${printKey(k)}: ${printLiteral(v, 8)},`));
    const validatePayload = f.import(tool.symbols.validatePayload);
    f.print(`        decodePayload: ${createDecoder()}<${Payload}>(${validatePayload}),`);
    if (tool.symbols.validateResult) {
      const Result = f.import(tool.symbols.result);
      const validateResult = f.import(tool.symbols.validateResult);
      f.print(`        decodeResult: ${createDecoder()}<${Result}>(${validateResult}),`);
      f.print(`        handler: (payload: ${Payload}, ctx: ${ToolContext()}) => handlers.${tool.memberName}(payload, ctx),`);
    } else {
      f.print(
        `        handler: async (payload: ${Payload}, ctx: ${ToolContext()}) => asResult(await handlers.${tool.memberName}(payload, ctx)),`,
      );
    }
    f.print("      },");
  }
  f.print("    ],", ...surface.options, "  });", "}", "");
  f.print(
    `/**`,
    ` * Serves ${docName(server.name)} over stdio (the default) or streamable HTTP, e.g.`,
    ` * \`${n.serve}(handlers, parseServeArgs())\` for \`--http --port 3000\`.`,
    ` */`,
    `${f.export("function", n.serve)}(handlers: ${n.handlers}, options?: ${rtType("ServeOptions")}, serverOptions?: ${n.options}): Promise<${rtType("ServeHandle")}> {`,
    `  return ${rt("serve")}(${n.create}(handlers, serverOptions), options);`,
    "}",
  );
}

/** Emits `servers/<server>/` for every `mcpServer` of the design. */
export const serverScaffoldPlugin: Plugin = {
  name: "server-scaffold",
  async emit(ir: IrDesign, out) {
    for (const server of ir.mcpServers) {
      // The server's own types and validators (in `servers/<server>`), printed by the same plugins as a toolset's.
      const sub: IrDesign = { ...ir, toolsets: [server.toolset], agents: [], mcpServers: [] };
      await typesPlugin.emit(sub, out);
      await validatorsPlugin.emit(sub, out);
      emitServer(ir, server, out);
      const dir = server.toolset.dirName;
      out.reexports(`${dir}/index.ts`, fileHeader(ir.file, undefined), [`${dir}/types.gen.ts`, server.symbols.create.file]);
    }
  },
};
