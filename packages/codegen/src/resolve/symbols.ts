/**
 * Every name generated code exports, computed once here from the resolved names, with the file
 * that declares it. Emitters print and import these symbols and never spell a name themselves, and
 * `checkClashes` refuses a design whose generated modules would export one name twice, since the
 * index files re-export them side by side.
 */
import { fileStem } from "../emit/names.js";
import { toolsetNames } from "../emit/toolset-names.js";
import { DesignError, type DesignLocation } from "../errors.js";
import type {
  IrAgent,
  IrExportKind,
  IrMcpServer,
  IrServerSymbols,
  IrSymbol,
  IrTool,
  IrToolSymbols,
  IrToolset,
  IrToolsetSymbols,
} from "../ir/ir.js";

const symbol = (name: string, declare: IrExportKind, file: string): IrSymbol => Object.freeze({ name, declare, file });

/** The toolset-level exports of `<dir>/*.gen.ts`. */
export function toolsetSymbols(ts: Pick<IrToolset, "dirName" | "camelName" | "pascalName">): IrToolsetSymbols {
  const n = toolsetNames(ts);
  const at = (module: string) => `${ts.dirName}/${module}.gen.ts`;
  return Object.freeze({
    toolsetName: symbol(n.toolsetName, "const", at("specs")),
    catalogue: symbol(n.catalogue, "const", at("specs")),
    specs: symbol(n.specs, "const", at("specs")),
    specMap: symbol(n.specMap, "const", at("specs")),
    find: symbol(n.find, "function", at("specs")),
    clientType: symbol(n.clientType, "interface", at("client")),
    client: symbol(n.client, "function", at("client")),
    toolRequest: symbol(`${ts.pascalName}ToolRequest`, "interface", at("requests")),
    requestsType: symbol(n.requestsType, "interface", at("requests")),
    requests: symbol(n.requests, "const", at("requests")),
    register: symbol(n.register, "function", at("register")),
    checkDrift: symbol(n.checkDrift, "function", at("register")),
    codeMode: symbol(n.codeMode, "const", at("code-mode")),
    mock: symbol(n.mock, "function", at("mock")),
    mockType: symbol(n.mockType, "interface", at("mock")),
    mockHandlers: symbol(n.mockHandlers, "interface", at("mock")),
    mockCall: symbol(n.mockCall, "interface", at("mock")),
    mockResult: symbol(n.mockResult, "interface", at("mock")),
  });
}

/** A tool's exports: its payload and result types, its spec and its validators. */
export function toolSymbols(tool: Pick<IrTool, "localName" | "typeName" | "output">, dirName: string): IrToolSymbols {
  const at = (module: string) => `${dirName}/${module}.gen.ts`;
  return Object.freeze({
    // A type: json-schema-to-typescript prints an interface or a type alias, whichever fits the schema.
    payload: symbol(`${tool.typeName}Payload`, "type", at("types")),
    result: symbol(`${tool.typeName}Result`, "type", at("types")),
    spec: symbol(`${tool.localName}Spec`, "const", at("specs")),
    validatePayload: symbol(`validate${tool.typeName}Payload`, "const", at("validators")),
    validateResult: tool.output === undefined ? undefined : symbol(`validate${tool.typeName}Result`, "const", at("validators")),
  });
}

/** Public names of a server's scaffold: `calc` and `calc-server` both give `createCalcServer`. */
export function serverNames(server: Pick<IrMcpServer, "name" | "pascalName">) {
  const base = server.pascalName.endsWith("Server") && server.pascalName !== "Server" ? server.pascalName.slice(0, -6) : server.pascalName;
  return {
    dir: `servers/${fileStem(server.name)}`,
    handlers: `${base}ServerHandlers`,
    create: `create${base}Server`,
    serve: `serve${base}Server`,
    info: `${base.charAt(0).toLowerCase()}${base.slice(1)}ServerInfo`,
    options: `${base}ServerOptions`,
    completions: `${base}ServerCompletions`,
  };
}

/** A server scaffold's exports. */
export function serverSymbols(server: Pick<IrMcpServer, "name" | "pascalName">): IrServerSymbols {
  const n = serverNames(server);
  const file = `${n.dir}/server.gen.ts`;
  return Object.freeze({
    handlers: symbol(n.handlers, "interface", file),
    create: symbol(n.create, "function", file),
    serve: symbol(n.serve, "function", file),
    info: symbol(n.info, "const", file),
    options: symbol(n.options, "type", file),
    completions: symbol(n.completions, "interface", file),
  });
}

/** An agent module's exports. */
export function agentSymbols(agent: Pick<IrAgent, "camelName" | "pascalName" | "fileName">): IrAgent["symbols"] {
  const file = `agents/${agent.fileName}.gen.ts`;
  return Object.freeze({
    runPolicy: symbol(`${agent.camelName}RunPolicy`, "const", file),
    callers: symbol(`${agent.pascalName}Callers`, "interface", file),
    tools: symbol(`${agent.camelName}Tools`, "const", file),
    register: symbol(`register${agent.pascalName}Agent`, "function", file),
    createRuntime: symbol(`create${agent.pascalName}Runtime`, "function", file),
  });
}

/**
 * Throws a `DesignError` at `loc(owner)` when two symbols that one index re-exports share a name.
 * `owners` pairs each symbol with what declared it ("tool x", "toolset y"), for the message.
 */
export function checkClashes<T>(
  entries: readonly (readonly [IrSymbol, T])[],
  loc: (owner: T) => DesignLocation,
  label: (owner: T) => string,
): void {
  const seen = new Map<string, T>();
  for (const [s, owner] of entries) {
    const other = seen.get(s.name);
    if (other !== undefined && other !== owner)
      throw new DesignError(loc(owner), `its generated name ${s.name} collides with the one of ${label(other)}; rename one`);
    seen.set(s.name, owner);
  }
}
