/**
 * The demo's multi-step task over server-filesystem and server-memory: for every note in
 * `people/`, store the person in memory with the note's facts, relate each to "Computing", and write
 * `summary.md`. A scripted model (the real OpenAI SDK against scripted answers on 127.0.0.1) does it
 * twice: once calling the tools directly (one round trip per step, every result pasted into the
 * context), once in code mode (one `run_code` program). Context tokens are the o200k tokens of every
 * request the model received (messages plus tool definitions), summed over the round trips.
 * The servers are the real ones over stdio by default (`startLiveServers`); the offline test passes
 * generated mocks instead (mock-servers.ts), and the same run checks what they hold.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Runtime } from "@toolwright/runtime";
import { createProviderTools, createTokenAccount, type TokenAttribution } from "@toolwright/runtime/providers";
import OpenAI from "openai";
import { countTokens } from "../../packages/codegen/src/tokens/count.js";
import { type RealServers, startRealServers } from "../providers/real-servers.js";
import { chatCompletion, startScriptedProvider } from "../providers/scripted-provider.js";
import { catalogueCodeMode, memoryFileOf, storedEntities } from "./programs.js";

/** The people the notes describe; each note has a biography paragraph and a list of facts. */
const PEOPLE: readonly { name: string; facts: string[] }[] = [
  { name: "Ada Lovelace", facts: ["Wrote the first published program", "Worked with Charles Babbage", "Described the Analytical Engine"] },
  { name: "Grace Hopper", facts: ["Built the first compiler", "Co-designed COBOL", "Popularised the word bug"] },
  { name: "Alan Turing", facts: ["Defined the Turing machine", "Broke Enigma at Bletchley Park", "Proposed the imitation game"] },
  { name: "Edsger Dijkstra", facts: ["Found the shortest-path algorithm", "Argued against goto", "Wrote the THE operating system"] },
];

const slug = (name: string) => name.toLowerCase().replace(/[^a-z]+/g, "-");

/** A note as a person would keep it: a long biography (what direct calling pastes into the context), then the facts. */
function note(person: { name: string; facts: string[] }): string {
  const bio = Array.from(
    { length: 12 },
    (_, i) =>
      `${person.name} is remembered for work that shaped computing; paragraph ${i + 1} of the biography goes on about early life, letters, colleagues and the reception of the work over the following decades.`,
  ).join("\n");
  return `# ${person.name}\n\n${bio}\n\nFacts:\n${person.facts.map((f) => `- ${f}`).join("\n")}\n`;
}

/** One model tool call. */
export interface Call {
  readonly name: string;
  readonly args: unknown;
}

/** The direct run's turns: what a model would call, step by step, having read each result. */
function directTurns(people: string, summaryPath: string): Call[][] {
  const entities = PEOPLE.map((p) => ({ name: p.name, entityType: "person", observations: p.facts }));
  return [
    [{ name: "filesystem_list_directory", args: { path: people } }],
    PEOPLE.map((p) => ({ name: "filesystem_read_text_file", args: { path: join(people, `${slug(p.name)}.md`) } })),
    [{ name: "memory_create_entities", args: { entities: [...entities, { name: "Computing", entityType: "field", observations: [] }] } }],
    [
      {
        name: "memory_create_relations",
        args: { relations: PEOPLE.map((p) => ({ from: p.name, to: "Computing", relationType: "contributed_to" })) },
      },
    ],
    [{ name: "filesystem_write_file", args: { path: summaryPath, content: summaryText() } }],
  ];
}

/** The summary both runs write. */
function summaryText(): string {
  return `${PEOPLE.map((p) => `- ${p.name}: ${p.facts.length} facts`).join("\n")}\n`;
}

/** The code-mode run's one program (TypeScript, checked against the generated APIs before it runs). */
export function taskProgram(people: string, summaryPath: string): string {
  return `const listing = await filesystem.listDirectory({ path: ${JSON.stringify(people)} });
const files = listing.content.split("\\n").filter((l) => l.startsWith("[FILE] ")).map((l) => l.slice(7)).sort();
const notes = await Promise.all(files.map((f) => filesystem.readTextFile({ path: ${JSON.stringify(people)} + "/" + f })));
const people = notes.map((n) => ({
  name: (n.content.split("\\n")[0] ?? "").replace(/^# /, ""),
  facts: (n.content.split("Facts:\\n")[1] ?? "").split("\\n").filter((l) => l.startsWith("- ")).map((l) => l.slice(2)),
}));
await memory.createEntities({ entities: [...people.map((p) => ({ name: p.name, entityType: "person", observations: p.facts })), { name: "Computing", entityType: "field", observations: [] }] });
await memory.createRelations({ relations: people.map((p) => ({ from: p.name, to: "Computing", relationType: "contributed_to" })) });
const order = ${JSON.stringify(PEOPLE.map((p) => p.name))};
const summary = order.flatMap((name) => people.filter((p) => p.name === name)).map((p) => "- " + p.name + ": " + p.facts.length + " facts").join("\\n") + "\\n";
await filesystem.writeFile({ path: ${JSON.stringify(summaryPath)}, content: summary });
return { stored: people.length, summary: ${JSON.stringify(summaryPath)} };`;
}

/** The servers one run works on: a runtime over their tools, the folder it may use, and what they hold. */
export interface TaskServers {
  /** What the servers are, for the report: `stdio` for the real ones. */
  readonly kind: string;
  readonly runtime: Runtime;
  /** The folder server-filesystem is allowed to use. */
  readonly root: string;
  /** Puts a file the task starts from (its folders are made as needed). */
  seed(path: string, text: string): void;
  /** A file's text as the filesystem server holds it, or undefined when it is not there. */
  read(path: string): string | undefined;
  /** The entities the memory server holds (name → observations). */
  entities(): Map<string, string[]>;
  close(): Promise<void>;
}

/** Starts the servers of one run, fresh each time. */
export type StartServers = () => TaskServers | Promise<TaskServers>;

/** Task servers over `startRealServers` (examples/providers): what they hold is read from their own files. */
export function liveTaskServers(servers: RealServers): TaskServers {
  return {
    kind: "stdio",
    runtime: servers.runtime,
    root: servers.root,
    seed(path, text) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    },
    read: readOr,
    entities: () => storedEntities(memoryFileOf(servers.root)),
    close: () => servers.close(),
  };
}

/** The real server-filesystem and server-memory over stdio (what `npm run demo:code-mode` runs). */
export const startLiveServers: StartServers = () => liveTaskServers(startRealServers());

/** A scripted multi-step workflow: its data, the direct run's turns, the code-mode program, and its check. */
export interface Workflow {
  readonly name: string;
  /** Puts the files (and seeds memory through `servers.runtime`) the task starts from. */
  setUp(servers: TaskServers): Promise<void>;
  /** The direct run: the calls of each turn, as a model makes them having read every result. */
  directTurns(root: string): Call[][];
  /** The code-mode run's one program. */
  program(root: string): string;
  /** True when the servers hold the task's outcome. */
  done(servers: TaskServers): boolean;
}

/** What one run measured, and what the real servers hold afterwards. */
export interface TaskRun {
  readonly mode: "direct" | "code";
  /** What the servers were (`TaskServers.kind`). */
  readonly servers: string;
  readonly roundTrips: number;
  /** o200k tokens of every request the model received, summed. */
  readonly contextTokens: number;
  /** Tokens of the tool definitions alone, per request. */
  readonly definitionTokens: number;
  /** Entities the memory server holds afterwards (name → observations). */
  readonly entities: Map<string, string[]>;
  /** `summary.md` as the filesystem server holds it afterwards, or undefined. */
  readonly summary: string | undefined;
  /** Tool results that came back failed. */
  readonly failures: number;
  /** The workflow's own check of the servers' state. */
  readonly done: boolean;
  /** Code mode's token attribution (the run's account): what its programs kept out of the context. */
  readonly attribution?: TokenAttribution;
}

/** The summary the people task must write, and the people it must store. */
export const EXPECTED = { summary: summaryText(), people: PEOPLE };

/** The demo's task: the people notes. */
export const PEOPLE_WORKFLOW: Workflow = {
  name: "people notes -> memory + summary",
  async setUp({ root, seed }) {
    for (const p of PEOPLE) seed(join(root, "people", `${slug(p.name)}.md`), note(p));
  },
  directTurns: (root) => directTurns(join(root, "people"), join(root, "summary.md")),
  program: (root) => taskProgram(join(root, "people"), join(root, "summary.md")),
  done({ root, read, entities }) {
    const held = entities();
    return (
      read(join(root, "summary.md")) === summaryText() &&
      PEOPLE.every((p) => JSON.stringify(held.get(p.name)) === JSON.stringify(p.facts)) &&
      held.has("Computing")
    );
  },
};

/** A file's text, or undefined when it is not there. */
export function readOr(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Runs the people task once in `mode` (the demo), on servers from `start` (default: the real ones). */
export const runTask = (mode: "direct" | "code", start: StartServers = startLiveServers) => runWorkflow(PEOPLE_WORKFLOW, mode, start);

/** Runs `workflow` once in `mode` on fresh servers from `start` (default: the real ones) and a fresh scripted model. */
export async function runWorkflow(workflow: Workflow, mode: "direct" | "code", start: StartServers = startLiveServers): Promise<TaskRun> {
  const servers = await start();
  const provider = await startScriptedProvider();
  try {
    const root = servers.root;
    await workflow.setUp(servers);
    const account = createTokenAccount();
    const tools = createProviderTools(servers.runtime, {
      format: "openai-chat",
      ...(mode === "code" ? { codeMode: { plugin: catalogueCodeMode(account), mode: "code" as const } } : {}),
    });
    const turns: Call[][] =
      mode === "direct" ? workflow.directTurns(root) : [[{ name: "run_code", args: { code: workflow.program(root) } }]];
    for (const [i, turn] of turns.entries())
      provider.script(
        "/v1/chat/completions",
        chatCompletion(turn.map((c, j) => ({ id: `call_${i}_${j}`, name: c.name, arguments: JSON.stringify(c.args) }))),
      );
    provider.script("/v1/chat/completions", chatCompletion([], "Done."));
    const openai = new OpenAI({ apiKey: "demo", baseURL: `${provider.url}/v1`, maxRetries: 0 });
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: "user", content: `Task (${workflow.name}) in ${root}.` },
    ];
    let failures = 0;
    for (let turn = 0; turn <= turns.length; turn++) {
      const answer = await openai.chat.completions.create({ model: "demo", messages, tools: tools.definitions() });
      const message = answer.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
      if (!message.tool_calls?.length) break;
      const { messages: results, outcomes } = await tools.run(message);
      failures += outcomes.filter((o) => !o.result.ok).length;
      messages.push(message, ...results);
    }
    const requests = provider.requests("/v1/chat/completions");
    const entities = servers.entities();
    return {
      mode,
      servers: servers.kind,
      roundTrips: requests.length,
      contextTokens: requests.reduce((n, r) => n + countTokens(JSON.stringify({ messages: r.messages, tools: r.tools })), 0),
      definitionTokens: countTokens(JSON.stringify(requests[0]?.tools ?? [])),
      entities,
      summary: servers.read(join(root, "summary.md")),
      failures,
      done: workflow.done(servers),
      ...(mode === "code" ? { attribution: account.attribution() } : {}),
    };
  } finally {
    await provider.close();
    await servers.close();
  }
}
