/**
 * Scripted multi-step workflows over server-filesystem and server-memory for the bench (the demo's
 * people task is the first). Each has the direct run's turns, as a model makes them after reading
 * each result, and the one code-mode program; each is checked on what the real servers hold after.
 */
import { join } from "node:path";
import { type Call, PEOPLE_WORKFLOW, type TaskServers, type Workflow } from "./task.js";

const TOPICS = ["compiler", "kernel", "network", "storage", "scheduler", "parser"];

/** Source-like files with TODO lines scattered in long bodies. */
function sourceFile(topic: string): string {
  const lines: string[] = [];
  for (let i = 0; i < 60; i++)
    lines.push(
      i % 17 === 5 ? `// TODO(${topic}): handle case ${i}` : `const ${topic}Step${i} = run${topic}(${i}); // keeps the ${topic} going`,
    );
  return `${lines.join("\n")}\n`;
}
const todosOf = (topic: string) =>
  sourceFile(topic)
    .split("\n")
    .filter((l) => l.startsWith("// TODO"));

const TODO_WORKFLOW: Workflow = {
  name: "collect TODOs across files -> todo.md",
  async setUp({ root, seed }) {
    for (const t of TOPICS) seed(join(root, "src", `${t}.ts`), sourceFile(t));
  },
  directTurns: (root) => [
    [{ name: "filesystem_list_directory", args: { path: join(root, "src") } }],
    [{ name: "filesystem_read_multiple_files", args: { paths: TOPICS.map((t) => join(root, "src", `${t}.ts`)) } }],
    [{ name: "filesystem_write_file", args: { path: join(root, "todo.md"), content: todoText() } }],
  ],
  program: (root) => `const dir = ${JSON.stringify(join(root, "src"))};
const listing = await filesystem.listDirectory({ path: dir });
const files = listing.content.split("\\n").filter((l) => l.startsWith("[FILE] ")).map((l) => l.slice(7));
const order = ${JSON.stringify(TOPICS.map((t) => `${t}.ts`))}.filter((f) => files.includes(f));
const todos: string[] = [];
for (const f of order) {
  const file = await filesystem.readTextFile({ path: dir + "/" + f });
  todos.push(...file.content.split("\\n").filter((l) => l.startsWith("// TODO")));
}
await filesystem.writeFile({ path: ${JSON.stringify(join(root, "todo.md"))}, content: todos.join("\\n") + "\\n" });
return { todos: todos.length };`,
  done: ({ root, read }) => read(join(root, "todo.md")) === todoText(),
};
function todoText(): string {
  return `${TOPICS.flatMap(todosOf).join("\n")}\n`;
}

/** Seeds memory with `count` people through the runtime (the same server the run then uses). */
async function seedPeople(runtime: TaskServers["runtime"], count: number): Promise<void> {
  const entities = Array.from({ length: count }, (_, i) => ({
    name: `Person ${i}`,
    entityType: i % 3 === 0 ? "engineer" : "manager",
    observations: [`Joined in ${2000 + i}`, `Works on project ${i % 5}`, `Lives in city ${i % 7}`],
  }));
  const result = await runtime.execute({ tool: "memory.create_entities", arguments: { entities } });
  if (!result.ok) throw new Error(`seeding memory failed: ${result.failure.message}`);
}

const ENGINEERS = Array.from({ length: 40 }, (_, i) => i)
  .filter((i) => i % 3 === 0)
  .map((i) => `Person ${i}`);

const AUDIT_WORKFLOW: Workflow = {
  name: "audit engineers in memory -> observations + report",
  setUp: ({ runtime }) => seedPeople(runtime, 40),
  directTurns: (root) => [
    [{ name: "memory_read_graph", args: {} }],
    [{ name: "memory_add_observations", args: { observations: ENGINEERS.map((n) => ({ entityName: n, contents: ["audited"] })) } }],
    [{ name: "filesystem_write_file", args: { path: join(root, "audit.txt"), content: `${ENGINEERS.join("\n")}\n` } }],
  ],
  program: (root) => `const graph = await memory.readGraph({});
const engineers = graph.entities.filter((e) => e.entityType === "engineer").map((e) => e.name);
await memory.addObservations({ observations: engineers.map((n) => ({ entityName: n, contents: ["audited"] })) });
await filesystem.writeFile({ path: ${JSON.stringify(join(root, "audit.txt"))}, content: engineers.join("\\n") + "\\n" });
return { audited: engineers.length };`,
  done: ({ root, read, entities }) =>
    read(join(root, "audit.txt")) === `${ENGINEERS.join("\n")}\n` &&
    ENGINEERS.every((n) => entities().get(n)?.includes("audited") === true),
};

const REPORTS = Array.from({ length: 8 }, (_, i) => `report-${i}.csv`);
const csv = (i: number) => `${Array.from({ length: 40 }, (_, r) => `row${r},${(r * (i + 3)) % 97},${"x".repeat(20 + i)}`).join("\n")}\n`;

const SIZES_WORKFLOW: Workflow = {
  name: "largest reports -> sizes.txt",
  async setUp({ root, seed }) {
    REPORTS.forEach((f, i) => {
      seed(join(root, "reports", f), csv(i));
    });
  },
  directTurns: (root) => [
    [{ name: "filesystem_list_directory_with_sizes", args: { path: join(root, "reports"), sortBy: "size" } }],
    REPORTS.slice(-3).map((f) => ({ name: "filesystem_read_text_file", args: { path: join(root, "reports", f), head: 40 } })),
    [{ name: "filesystem_write_file", args: { path: join(root, "sizes.txt"), content: sizesText() } }],
  ],
  program: (root) => `const dir = ${JSON.stringify(join(root, "reports"))};
const names = ${JSON.stringify(REPORTS)};
const files = await Promise.all(names.map((f) => filesystem.readTextFile({ path: dir + "/" + f })));
const rows = names.map((f, i) => ({ f, rows: (files[i]?.content ?? "").split("\\n").filter((l) => l !== "").length, bytes: (files[i]?.content ?? "").length }));
const top = rows.sort((a, b) => b.bytes - a.bytes).slice(0, 3).map((r) => r.f + " " + r.rows).join("\\n") + "\\n";
await filesystem.writeFile({ path: ${JSON.stringify(join(root, "sizes.txt"))}, content: top });
return top;`,
  done: ({ root, read }) => read(join(root, "sizes.txt")) === sizesText(),
};
function sizesText(): string {
  return `${REPORTS.map((f, i) => ({ f, bytes: csv(i).length }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 3)
    .map((r) => `${r.f} 40`)
    .join("\n")}\n`;
}

const GLOSSARY = Array.from({ length: 30 }, (_, i) => ({
  term: `Term${i}`,
  text: `Definition of term ${i}: a concept used in chapter ${i % 6}.`,
}));

const GLOSSARY_WORKFLOW: Workflow = {
  name: "glossary file -> memory concepts + chapter relations",
  async setUp({ root, seed }) {
    seed(join(root, "glossary.md"), `${GLOSSARY.map((g) => `${g.term}: ${g.text}`).join("\n")}\n`);
  },
  directTurns: (root) => {
    const turns: Call[][] = [
      [{ name: "filesystem_read_text_file", args: { path: join(root, "glossary.md") } }],
      [
        {
          name: "memory_create_entities",
          args: { entities: GLOSSARY.map((g) => ({ name: g.term, entityType: "concept", observations: [g.text] })) },
        },
      ],
      [
        {
          name: "memory_create_relations",
          args: { relations: GLOSSARY.map((g, i) => ({ from: g.term, to: `Chapter ${i % 6}`, relationType: "used_in" })) },
        },
      ],
      [{ name: "memory_search_nodes", args: { query: "chapter 0" } }],
    ];
    return turns;
  },
  program: (root) => `const file = await filesystem.readTextFile({ path: ${JSON.stringify(join(root, "glossary.md"))} });
const terms = file.content.split("\\n").filter((l) => l.includes(": ")).map((l) => ({ term: l.slice(0, l.indexOf(": ")), text: l.slice(l.indexOf(": ") + 2) }));
await memory.createEntities({ entities: terms.map((t) => ({ name: t.term, entityType: "concept", observations: [t.text] })) });
await memory.createRelations({ relations: terms.map((t, i) => ({ from: t.term, to: "Chapter " + (i % 6), relationType: "used_in" })) });
const check = await memory.searchNodes({ query: "chapter 0" });
return { stored: terms.length, chapter0: check.entities.length };`,
  done: ({ entities }) => {
    const held = entities();
    return GLOSSARY.every((g) => JSON.stringify(held.get(g.term)) === JSON.stringify([g.text]));
  },
};

/** Every workflow the bench measures, the demo's first. */
export const WORKFLOWS: readonly Workflow[] = [PEOPLE_WORKFLOW, TODO_WORKFLOW, AUDIT_WORKFLOW, SIZES_WORKFLOW, GLOSSARY_WORKFLOW];
