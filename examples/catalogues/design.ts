/**
 * Real catalogues: three live MCP servers (the reference npm servers, started over stdio) whose
 * tool catalogues `toolwright pull` snapshots into design.lock.json. Regenerate with
 *   toolwright pull examples/catalogues/design.ts
 *   toolwright gen examples/catalogues/design.ts --out examples/catalogues/src/gen
 * Connection paths are relative to this folder (pull runs each server with cwd = this folder).
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";

const servers = "../../node_modules/@modelcontextprotocol";

/** server-everything over stdio; pulled without client capabilities (so no roots/sampling/elicitation tools). */
export const everything = externalServer("everything", { command: "node", args: [`${servers}/server-everything/dist/index.js`, "stdio"] });

/**
 * server-everything again, pulled as a client that declares roots, sampling and elicitation: the
 * server then also lists get-roots-list and the sampling and elicitation triggers.
 */
export const everythingWithFeatures = externalServer("everything-features", {
  command: "node",
  args: [`${servers}/server-everything/dist/index.js`, "stdio"],
  capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } },
});

/** server-filesystem over stdio, sandboxed to this folder at pull time (the root is an argument; pass your own at run time). */
export const filesystem = externalServer("filesystem", { command: "node", args: [`${servers}/server-filesystem/dist/index.js`, "."] });

/** server-memory over stdio; MEMORY_FILE_PATH is a literal so pulling never writes into the package folder. */
export const memory = externalServer("memory", {
  command: "node",
  args: [`${servers}/server-memory/dist/index.js`],
  env: [`MEMORY_FILE_PATH=${join(tmpdir(), "toolwright-catalogues-pull-memory.jsonl")}`],
});

export default design({
  toolsets: [
    toolset("everything", fromMCP(everything)),
    toolset("everything-features", fromMCP(everythingWithFeatures)),
    toolset("filesystem", fromMCP(filesystem)),
    toolset("memory", fromMCP(memory)),
  ],
});
