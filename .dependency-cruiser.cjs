/**
 * Dependency direction, checked by `npm run lint` (docs/architecture.md draws it). The runtime's
 * folders stand on floors (scripts/runtime-floors.cjs), bottom first:
 *   failure → protocol (with its revisions/), schema → transport → auth, server → caller,
 *   client-features → planner
 *   → core → catalogue, durable → manager → codegen
 * A folder imports only its own files and lower floors (`floors-point-down`), and each entry file is
 * the face of one folder (`entry-faces-its-folder`). Plus: the runtime and the DSL have no npm
 * dependencies, nothing in them imports codegen, and generated code imports only @toolwright/runtime
 * and its own folder.
 *
 * No rule has exceptions. The runtime root holds entry files only (rule `runtime-root-holds-only-entries`); every other
 * file sits in the folder of its layer, so the layers below are plain folder names.
 */
const { ENTRY_HOME, FOLDERS, notBelow } = require("./scripts/runtime-floors.cjs");

const RT = "^packages/runtime/src/";
const RT_ENTRIES = `${RT}(${Object.keys(ENTRY_HOME).join("|")})\\.ts$`;
const RT_FOLDERS = FOLDERS;
const folders = (list) => `${RT}(${list.join("|")})/`;
const RT_FAILURE = `${RT}failure/`;

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
    // One rule per folder: it imports itself and lower floors only (no arrow runs up, so no circle
    // between folders either). Replaces the per-layer rules: failure is the bottom, protocol knows no
    // transport, callers know nothing that uses them, the server stands alone.
    ...RT_FOLDERS.map((folder) => ({
      name: "floors-point-down",
      comment: `${folder}/ imports only itself and the floors below it (scripts/runtime-floors.cjs).`,
      severity: "error",
      from: { path: `${RT}${folder}/` },
      to: { path: folders(notBelow(folder)) },
    })),
    {
      name: "every-runtime-folder-has-a-floor",
      comment: "A new folder goes on a floor in scripts/runtime-floors.cjs before anything can import it.",
      severity: "error",
      from: {},
      to: { path: `${RT}[^/]+/`, pathNot: folders(RT_FOLDERS) },
    },
    // One rule per entry: the face of its folder re-exports that folder and lower floors only.
    ...Object.entries(ENTRY_HOME).map(([entry, home]) => ({
      name: "entry-faces-its-folder",
      comment: `${entry}.ts is the face of ${home}/: it re-exports ${home}/ and the floors below it.`,
      severity: "error",
      from: { path: `${RT}${entry}\\.ts$` },
      to: { path: folders(notBelow(home)) },
    })),
    {
      name: "core-does-not-import-wings",
      comment: "The runtime core (registry, policy, telemetry) is used by the wings, never the reverse; it stays model-agnostic.",
      severity: "error",
      from: { path: `${RT}core/` },
      to: { path: folders(["catalogue", "durable", "manager", "server", "planner", "client-features", "auth"]) },
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
      name: "manager-does-not-import-server",
      comment: "The manager drives callers; serving is the server's job.",
      severity: "error",
      from: { path: `${RT}manager/` },
      to: { path: `${RT}server/` },
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
