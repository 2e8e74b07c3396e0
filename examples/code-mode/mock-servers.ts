/**
 * The code-mode demo offline: the generated mocks of server-filesystem and server-memory
 * (`examples/catalogues/src/gen/<toolset>/mock.gen.ts`), run in this process by `startMock` from
 * `@toolwright/testkit`, with handlers that keep what the real servers keep: a small file map and a
 * knowledge graph. They answer as the real servers do, text blocks included (the demo's test checks
 * that against the cassettes recorded from them): server-filesystem's text is its answer's `content`,
 * server-memory's the JSON of its list, two-space indented. So the planner reads, and the token
 * account counts, what it would read live.
 */
import { createRuntime } from "@toolwright/runtime";
import { type RunningMock, result, startMock } from "@toolwright/testkit";
import { registerFilesystemToolset } from "../catalogues/src/gen/filesystem/index.js";
import { createFilesystemMock } from "../catalogues/src/gen/filesystem/mock.gen.js";
import { registerMemoryToolset } from "../catalogues/src/gen/memory/index.js";
import { createMemoryMock } from "../catalogues/src/gen/memory/mock.gen.js";
import type { CreateEntitiesPayload, CreateRelationsPayload } from "../catalogues/src/gen/memory/types.gen.js";
import { RECORDED_ROOT } from "./cassettes.js";
import type { TaskServers } from "./task.js";

type Entity = CreateEntitiesPayload["entities"][number];
type Relation = CreateRelationsPayload["relations"][number];

/** Task servers on mocks, with the running mocks for assertions (`calls`, `failures`). */
export interface MockTaskServers extends TaskServers {
  readonly mocks: { readonly filesystem: RunningMock; readonly memory: RunningMock };
}

/** server-filesystem's listing of `dir`: `[FILE] name` / `[DIR] name` lines, in name order (as libuv's scandir gives them). */
function listing(files: ReadonlyMap<string, string>, dir: string): string {
  const entries = new Map<string, string>();
  for (const path of files.keys()) {
    if (!path.startsWith(`${dir}/`)) continue;
    const [name = "", ...rest] = path.slice(dir.length + 1).split("/");
    entries.set(name, rest.length > 0 ? "[DIR]" : "[FILE]");
  }
  // A folder holds at least one seeded file here; an unknown one is the server's ENOENT.
  if (entries.size === 0) throw new Error(`ENOENT: no such file or directory, scandir '${dir}'`);
  return [...entries.keys()]
    .sort()
    .map((name) => `${entries.get(name)} ${name}`)
    .join("\n");
}

/** server-filesystem's answer: the text as its one text block and as the structured `content`. */
const text = (content: string) => result({ content: [{ type: "text", text: content }], structuredContent: { content } });
/** server-memory's text block: the JSON of the list it answers, two-space indented. */
const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Starts both mocks in memory (no process, no socket) under a root of `RECORDED_ROOT`, with nothing in them. */
export async function startMockServers(): Promise<MockTaskServers> {
  const files = new Map<string, string>();
  const graph: { entities: Entity[]; relations: Relation[] } = { entities: [], relations: [] };
  const read = (path: string) => {
    const text = files.get(path);
    if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
    return text;
  };
  const filesystem = await startMock(
    createFilesystemMock({
      listDirectory: ({ path }) => text(listing(files, path)),
      readTextFile: ({ path }) => text(read(path)),
      writeFile: ({ path, content }) => {
        files.set(path, content);
        return text(`Successfully wrote to ${path}`);
      },
    }),
  );
  // server-memory's rules: an entity or relation that is already there is not added again, and the answer lists the new ones.
  const memory = await startMock(
    createMemoryMock({
      createEntities: ({ entities }) => {
        const fresh = entities.filter((e) => !graph.entities.some((g) => g.name === e.name));
        graph.entities.push(...fresh);
        return result({ content: [{ type: "text", text: json(fresh) }], structuredContent: { entities: fresh } });
      },
      createRelations: ({ relations }) => {
        const same = (a: Relation, b: Relation) => a.from === b.from && a.to === b.to && a.relationType === b.relationType;
        const fresh = relations.filter((r) => !graph.relations.some((g) => same(g, r)));
        graph.relations.push(...fresh);
        return result({ content: [{ type: "text", text: json(fresh) }], structuredContent: { relations: fresh } });
      },
    }),
  );
  const runtime = createRuntime();
  registerMemoryToolset(runtime, memory.caller);
  registerFilesystemToolset(runtime, filesystem.caller);
  return {
    kind: "generated mocks, in memory",
    runtime,
    root: RECORDED_ROOT,
    mocks: { filesystem, memory },
    seed: (path, text) => void files.set(path, text),
    read: (path) => files.get(path),
    entities: () => new Map(graph.entities.map((e) => [e.name, [...e.observations]])),
    async close() {
      await Promise.all([filesystem.close(), memory.close()]);
    },
  };
}
