/**
 * The names a toolset's modules export, computed from its camel and Pascal names. The resolver uses
 * them to keep per-tool names (`<tool>Spec`) from colliding with toolset-level ones.
 */

/** Names of the toolset-level exports. */
export function toolsetNames(ts: { readonly camelName: string; readonly pascalName: string }) {
  return {
    specs: `${ts.camelName}Specs`,
    specMap: `${ts.camelName}SpecMap`,
    find: `find${ts.pascalName}Spec`,
    client: `create${ts.pascalName}Client`,
    clientType: `${ts.pascalName}Client`,
    register: `register${ts.pascalName}Toolset`,
    requests: `${ts.camelName}Requests`,
    requestsType: `${ts.pascalName}Requests`,
    toolsetName: `${ts.camelName}ToolsetName`,
    catalogue: `${ts.camelName}Catalogue`,
    checkDrift: `check${ts.pascalName}Drift`,
  };
}
