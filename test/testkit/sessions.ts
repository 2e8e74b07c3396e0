/**
 * Scripted sessions for the cassette tests: each drives a caller through the generated typed
 * client of a real server (examples/catalogues) and returns every answer serialised, so a real
 * session and its replay can be compared byte for byte.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { createEverythingClient } from "../../examples/catalogues/src/gen/everything/index.js";
import { createFilesystemClient } from "../../examples/catalogues/src/gen/filesystem/index.js";
import { createMemoryClient } from "../../examples/catalogues/src/gen/memory/index.js";

const require = createRequire(import.meta.url);
const entry = (pkg: string) => join(dirname(require.resolve(`${pkg}/package.json`)), "dist/index.js");
/** The reference servers' entry scripts (devDependencies, never npx). */
export const EVERYTHING = entry("@modelcontextprotocol/server-everything");
export const FILESYSTEM = entry("@modelcontextprotocol/server-filesystem");
export const MEMORY = entry("@modelcontextprotocol/server-memory");
/** The runtime's demo tool server (both eras, progress, elicitation), run through tsx. */
export const DEMO = fileURLToPath(new URL("../server/fixtures/serve-demo.ts", import.meta.url));
export const TSX = fileURLToPath(new URL("dist/cli.mjs", `file://${require.resolve("tsx/package.json")}`));

/** Serialises an answer; a failure keeps its kind, reason and message. */
const show = (value: unknown) => JSON.stringify(value);

/** server-everything: lists, echo, sum, structured content, progress, a server error, a local validation failure. */
export async function everythingSession(caller: SessionCaller): Promise<string[]> {
  const client = createEverythingClient(caller);
  const out: string[] = [];
  out.push(show(await caller.listTools()));
  out.push(show(await client.echo({ message: "hello cassette" })));
  out.push(show(await client.getSum({ a: 2, b: 40 })));
  out.push(show(await client.getStructuredContent({ location: "Chicago" })));
  out.push(show(await client.getAnnotatedMessage({ messageType: "error" })));
  const progress: unknown[] = [];
  out.push(show(await client.triggerLongRunningOperation({ duration: 0.2, steps: 2 }, { onProgress: (p) => progress.push(p) })));
  out.push(show(progress));
  out.push(show(await caller.callTool({ name: "no-such-tool", arguments: {} })));
  out.push(show(await client.readInstructionsMd()));
  return out;
}

/** server-memory: writes and reads a knowledge graph (the file starts empty in each recording). */
export async function memorySession(caller: SessionCaller): Promise<string[]> {
  const client = createMemoryClient(caller);
  const out: string[] = [];
  out.push(show(await client.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: ["wrote notes"] }] })));
  out.push(show(await client.addObservations({ observations: [{ entityName: "Ada", contents: ["likes engines"] }] })));
  out.push(show(await client.createRelations({ relations: [{ from: "Ada", to: "Ada", relationType: "knows" }] })));
  out.push(show(await client.searchNodes({ query: "engines" })));
  out.push(show(await client.openNodes({ names: ["Ada", "Nobody"] })));
  out.push(show(await client.readGraph({})));
  out.push(show(await client.addObservations({ observations: [{ entityName: "Nobody", contents: ["x"] }] })));
  return out;
}

/** server-filesystem (roots asked of the client): writes, reads, lists, searches, and an out-of-root read. */
export async function filesystemSession(caller: SessionCaller, root: string): Promise<string[]> {
  const client = createFilesystemClient(caller);
  const out: string[] = [];
  out.push(show(await client.listAllowedDirectories({})));
  out.push(show(await client.writeFile({ path: join(root, "note.txt"), content: "line one\nline two\n" })));
  out.push(show(await client.readTextFile({ path: join(root, "note.txt"), head: 1 })));
  out.push(show(await client.createDirectory({ path: join(root, "sub") })));
  out.push(show(await client.listDirectory({ path: root })));
  out.push(show(await client.searchFiles({ path: root, pattern: "note" })));
  out.push(show(await client.readTextFile({ path: "/etc/hostname" })));
  return out;
}

/** The demo server in either era: calls, progress, an elicitation round trip, a tool that throws. */
export async function demoSession(caller: SessionCaller): Promise<string[]> {
  const out: string[] = [];
  out.push(show(await caller.listTools()));
  out.push(show(await caller.callTool({ name: "add", arguments: { a: 1, b: 2 } })));
  out.push(show(await caller.callTool({ name: "echo", arguments: { message: "modern" } })));
  const progress: unknown[] = [];
  out.push(show(await caller.callTool({ name: "slow", arguments: { steps: 2 } }, { onProgress: (p) => progress.push(p) })));
  out.push(show(progress));
  out.push(show(await caller.callTool({ name: "ask", arguments: { message: "Who are you?" } })));
  out.push(show(await caller.callTool({ name: "fail", arguments: {} })));
  out.push(show(await caller.callTool({ name: "add", arguments: { a: "one" } })));
  return out;
}
