/**
 * The names a toolset's modules export, computed from its camel and Pascal names. They share the
 * toolset's index with the per-tool names (`<tool>Spec`, `<Tool>Payload`, `<Tool>Result`), so none
 * of them ends the way a tool-derived name does: no tool name can reach one of these, and a tool's
 * identifiers never have to yield (docs/codegen.md, "Naming rules"; names.test.ts checks it).
 */

/** The endings of every identifier derived from a tool's name; no toolset-level name may end so. */
export const TOOL_NAME_SUFFIXES = ["Spec", "Payload", "Result"] as const;

/** Names of the toolset-level exports. */
export function toolsetNames(ts: { readonly camelName: string; readonly pascalName: string }) {
  return {
    specs: `${ts.camelName}Specs`,
    specMap: `${ts.camelName}SpecMap`,
    find: `find${ts.pascalName}SpecByName`,
    client: `create${ts.pascalName}Client`,
    clientType: `${ts.pascalName}Client`,
    register: `register${ts.pascalName}Toolset`,
    requests: `${ts.camelName}Requests`,
    requestsType: `${ts.pascalName}Requests`,
    toolsetName: `${ts.camelName}ToolsetName`,
    catalogue: `${ts.camelName}Catalogue`,
    checkDrift: `check${ts.pascalName}Drift`,
    codeMode: `${ts.camelName}CodeMode`,
    mock: `create${ts.pascalName}Mock`,
    mockType: `${ts.pascalName}Mock`,
    mockHandlers: `${ts.pascalName}MockHandlers`,
    mockCall: `${ts.pascalName}MockCall`,
    // Reply, not Result: a helper must never end like a tool-derived name (TOOL_NAME_SUFFIXES).
    mockResult: `${ts.pascalName}MockReply`,
  };
}
