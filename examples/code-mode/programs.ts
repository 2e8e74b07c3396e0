/**
 * Programs a model writes in code mode over server-filesystem and server-memory, as the scripted
 * models of the tests, the demo and the bench send them. Paths are embedded as JSON string literals
 * (text is data: a temp folder's name never becomes code).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createCodeModeTools } from "@toolwright/code-mode";
import type { TokenAccount } from "@toolwright/runtime/providers";
import { countTokens } from "../../packages/codegen/src/tokens/count.js";
import { filesystemCodeMode } from "../catalogues/src/gen/filesystem/code-mode.gen.js";
import { memoryCodeMode } from "../catalogues/src/gen/memory/code-mode.gen.js";

/** The code-mode plug-in over the generated filesystem and memory APIs (typed programs, real token counts). */
export function catalogueCodeMode(account?: TokenAccount) {
  // The account only records (what code mode kept out of the context); the answer budget stays the default.
  return createCodeModeTools({
    apis: [filesystemCodeMode, memoryCodeMode],
    countTokens,
    ...(account ? { resultBudget: { account, countTokens } } : {}),
  });
}

/** Reads the notes, stores Ada with one observation per line, and returns what the memory server holds. */
export function adaProgram(notes: string): string {
  return [
    `const notes = await filesystem.readTextFile({ path: ${JSON.stringify(notes)} });`,
    `const facts = notes.content.split("\\n").filter((line) => line.trim() !== "");`,
    `await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: facts }] });`,
    `const graph = await memory.openNodes({ names: ["Ada"] });`,
    "return { stored: graph.entities.map((e) => e.name), facts: facts.length };",
  ].join("\n");
}

/** The entities (name → observations) server-memory wrote to its own file `memoryFile`. */
export function storedEntities(memoryFile: string): Map<string, string[]> {
  let text = "";
  try {
    text = readFileSync(memoryFile, "utf8");
  } catch {
    return new Map();
  }
  const out = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const row = JSON.parse(line) as { type?: string; name?: string; observations?: string[] };
    if (row.type === "entity" && typeof row.name === "string") out.set(row.name, row.observations ?? []);
  }
  return out;
}

/** Where `startRealServers` (examples/providers) keeps the memory server's file for a given root. */
export const memoryFileOf = (root: string) => join(dirname(root), "memory.jsonl");
