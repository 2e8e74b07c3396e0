/**
 * server-memory as the generated mock (src/gen/memory/mock.gen.ts) for the example's test: the
 * handlers keep the graph in memory and answer the texts server-memory answers (its JSON, two-space
 * indented), checked against a cassette of the real server (cassettes/memory.cassette.jsonl). The
 * mock runs on streamable HTTP at 127.0.0.1 so the demo's worker processes reach it as a server.
 */
import { fileURLToPath } from "node:url";
import { IDEMPOTENCY_KEY_META } from "@toolwright/runtime/durable";
import { type RunningMock, startMock } from "@toolwright/testkit";
import { HOLD, type MemoryServer } from "./demo.js";
import { createMemoryMock, type MemoryMockHandlers } from "./src/gen/memory/mock.gen.js";

type Entity = { name: string; entityType: string; observations: string[] };
type Relation = { from: string; to: string; relationType: string };

const json = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * Handlers behaving like server-memory: creating an existing entity or relation adds nothing,
 * observations already present are skipped. `hold`: answers of that tool come `ms` late, after
 * the graph changed (a slow server that already ran the call).
 */
export function memoryHandlers(hold?: { readonly tool: string; readonly ms: number }): MemoryMockHandlers {
  const entities: Entity[] = [];
  const relations: Relation[] = [];
  const late = async (tool: string) => {
    if (hold?.tool === tool) await new Promise((resolve) => setTimeout(resolve, hold.ms));
  };
  const graphOf = (names: readonly string[]) => ({
    entities: entities.filter((e) => names.includes(e.name)),
    relations: relations.filter((r) => names.includes(r.from) || names.includes(r.to)),
  });
  return {
    async createEntities(payload) {
      const added = payload.entities
        .filter((e) => !entities.some((x) => x.name === e.name))
        .map((e) => ({ name: e.name, entityType: e.entityType, observations: [...e.observations] }));
      entities.push(...added.map((e) => ({ ...e, observations: [...e.observations] })));
      await late("create_entities");
      return json(added);
    },
    async createRelations(payload) {
      const same = (a: Relation) => (b: Relation) => a.from === b.from && a.to === b.to && a.relationType === b.relationType;
      const added = payload.relations
        .filter((r) => !relations.some(same(r)))
        .map((r) => ({ from: r.from, to: r.to, relationType: r.relationType }));
      relations.push(...added);
      await late("create_relations");
      return json(added);
    },
    async addObservations(payload) {
      const results = payload.observations.map((o) => {
        const entity = entities.find((e) => e.name === o.entityName);
        if (!entity) throw new Error(`Entity with name ${o.entityName} not found`);
        const addedObservations = o.contents.filter((c) => !entity.observations.includes(c));
        entity.observations.push(...addedObservations);
        return { entityName: o.entityName, addedObservations };
      });
      await late("add_observations");
      return json(results);
    },
    openNodes: ({ names }) => json(graphOf(names)),
    readGraph: () => json({ entities, relations }),
  };
}

/**
 * The mock on 127.0.0.1, answers of `HOLD.tool` held back like the real demo's proxy does. Each
 * worker gets its own endpoint over the one graph, so a call tells which worker's connection sent
 * it (the real proxy knows it the same way: one proxy per worker).
 */
export async function startMockMemory(): Promise<MemoryServer> {
  const handlers = memoryHandlers(HOLD);
  const mocks = new Map<string, RunningMock>();
  return {
    configDir: fileURLToPath(new URL("./mock", import.meta.url)),
    async env(worker) {
      const mock = await startMock(createMemoryMock(handlers), { transport: "http" });
      mocks.set(worker, mock);
      return { DEMO_MEMORY_URL: mock.url as string };
    },
    calls: () =>
      [...mocks].flatMap(([owner, mock]) =>
        mock.calls.map((c) => {
          // The key the durable layer put in the call's _meta, as the real demo's proxy logs it.
          const key = c._meta[IDEMPOTENCY_KEY_META];
          return { tool: c.tool, arguments: c.arguments, owner, key: typeof key === "string" ? key : null };
        }),
      ),
    close: async () => {
      await Promise.all([...mocks.values()].map((m) => m.close()));
    },
  };
}
