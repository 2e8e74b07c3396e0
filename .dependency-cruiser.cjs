/**
 * Dependency direction, checked by `npm run lint` (docs/architecture.md draws it):
 *   entries → manager, server, core → caller → protocol, transport → failure
 * plus: the runtime and the DSL have no npm dependencies, nothing in them imports codegen, and
 * generated code imports only @toolwright/runtime and its own folder.
 *
 * No rule has exceptions. The runtime root holds entry files only (rule `runtime-root-holds-only-entries`); every other
 * file sits in the folder of its layer, so the layers below are plain folder names.
 */
const RT = "^packages/runtime/src/";
const RT_ENTRIES = `${RT}(index|stdio|http|auth|client-features|protocol|catalogue|codegen|manager|durable|providers|server)\\.ts$`;
const RT_FAILURE = `${RT}failure/`;
const RT_CALLERS = `${RT}(caller|client-features)/`;

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "Modules never import each other, directly or round a loop.",
      severity: "error",
      from: { path: "^packages/" },
      to: { circular: true },
    },
    {
      name: "runtime-and-dsl-have-no-npm-dependencies",
      comment: "The runtime and the DSL depend on nothing but Node (brief: ZERO dependencies).",
      severity: "error",
      from: { path: "^packages/(runtime|dsl)/src/" },
      to: { dependencyTypes: ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-bundled", "npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "nothing-below-codegen-imports-codegen",
      comment: "Data flows DSL → IR → emitters → generated code → runtime; the runtime and DSL never import the generator.",
      severity: "error",
      from: { path: "^packages/(runtime|dsl)/src/" },
      to: { path: "^(packages/codegen/|@toolwright/codegen)" },
    },
    {
      name: "generated-code-imports-only-the-runtime",
      comment: "Generated files import @toolwright/runtime entries and files of their own output folder, nothing else.",
      severity: "error",
      from: { path: "^(examples/[^/]+/src/gen|test/golden/[^/]+/expected)/" },
      to: { pathNot: ["^packages/runtime/", "^@toolwright/runtime(/|$)", "^$1/"] },
    },
    {
      name: "emitters-never-validate",
      comment: "Plugins and emit/ print a resolved IR; design errors and ajv belong to resolve/.",
      severity: "error",
      from: { path: "^packages/codegen/src/(plugins|emit)/" },
      to: { path: ["^packages/codegen/src/errors\\.ts$", "^packages/codegen/src/resolve/validators\\.ts$", "(^|node_modules/)ajv(/|$)"] },
    },
    {
      name: "runtime-entries-are-imported-only-by-entries",
      comment: "Entry files are the public surface; implementation imports the implementation, not the surface.",
      severity: "error",
      from: { path: RT, pathNot: RT_ENTRIES },
      to: { path: RT_ENTRIES },
    },
    {
      name: "runtime-root-holds-only-entries",
      comment: "The runtime's root is its public surface: an implementation file there belongs in a layer's folder.",
      severity: "error",
      from: {},
      to: { path: `${RT}[^/]+\\.ts$`, pathNot: RT_ENTRIES },
    },
    {
      name: "failure-is-the-bottom",
      comment: "The failure type, the wire fault and the mapping table import nothing of the runtime above them.",
      severity: "error",
      from: { path: RT_FAILURE },
      to: { path: RT, pathNot: RT_FAILURE },
    },
    {
      name: "protocol-imports-only-protocol-and-failure",
      comment: "JSON-RPC, MCP messages and eras know nothing of transports, callers or anything above.",
      severity: "error",
      from: { path: `${RT}protocol/` },
      to: { path: RT, pathNot: [`${RT}protocol/`, RT_FAILURE] },
    },
    {
      name: "transport-imports-only-wire-protocol-and-failure",
      comment: "Transports move messages: JSON-RPC framing, era headers and wire faults, never the MCP session (that is caller/).",
      severity: "error",
      from: { path: `${RT}transport/` },
      to: {
        path: RT,
        pathNot: [`${RT}transport/`, `${RT}protocol/(json-rpc|modern|mcp-types)\\.ts$`, RT_FAILURE],
      },
    },
    {
      name: "callers-do-not-import-what-uses-them",
      comment: "Callers sit below the runtime core, the manager, the server and the planner.",
      severity: "error",
      from: { path: RT_CALLERS },
      to: { path: `${RT}(core|manager|server|planner)/` },
    },
    {
      name: "core-does-not-import-manager-server-or-planner",
      comment: "The runtime core (registry, invoke, policy, telemetry, durable seam) is used by them, not the reverse.",
      severity: "error",
      from: { path: `${RT}core/` },
      to: { path: `${RT}(manager|server|planner)/` },
    },
    {
      name: "server-stands-alone",
      comment: "What generated servers run on needs no client side: no callers, manager, core or planner.",
      severity: "error",
      from: { path: `${RT}server/` },
      to: { path: `${RT}(manager|core|planner|caller|client-features)/` },
    },
    {
      name: "manager-does-not-import-server",
      comment: "The manager drives callers; serving is the server's job.",
      severity: "error",
      from: { path: `${RT}manager/` },
      to: { path: `${RT}server/` },
    },
    {
      name: "planner-does-not-import-manager-or-server",
      comment: "Planner helpers work on a runtime and its specs, never on the manager or the server.",
      severity: "error",
      from: { path: `${RT}planner/` },
      to: { path: `${RT}(manager|server)/` },
    },
  ],
  options: {
    // TypeScript 7 has no JS compiler API for dependency-cruiser; swc parses TypeScript instead.
    parser: "swc",
    tsPreCompilationDeps: true,
    // node_modules is not followed but stays in the graph, so rules about npm packages can see it.
    exclude: { path: ["\\.test\\.ts$", "/dist/", "^test/golden/[^/]+/design\\.ts$"] },
    doNotFollow: { path: "node_modules" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".d.ts"] },
    // Unchanged files are not parsed again (keyed by content, so a fresh clone and CI agree).
    cache: { folder: "node_modules/.cache/dependency-cruiser", strategy: "content" },
  },
};
