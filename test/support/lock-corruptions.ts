/**
 * Generated corruptions of a real lock (examples/catalogues/design.lock.json: the pulled catalogues
 * of server-everything, -filesystem and -memory), for the lock-shape tests: each breaks the lock
 * format at one place and says which server, tool and field a good error names.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";

/** The real lock. */
export const REAL_LOCK = JSON.parse(readFileSync(new URL("../../examples/catalogues/design.lock.json", import.meta.url), "utf8")) as {
  version: 1;
  servers: { [name: string]: { tools: { name: string; [field: string]: unknown }[]; [field: string]: unknown } };
};
const REAL = REAL_LOCK;
const SERVERS = Object.keys(REAL.servers);

/** A path of keys into the lock. */
export type Path = readonly (string | number)[];
/** A fresh deep copy of the real lock. */
export const copyLock = (): typeof REAL => JSON.parse(JSON.stringify(REAL));
/** The object holding the value at `path`. */
export function parentOf(root: unknown, path: Path): { [key: string]: unknown } {
  let node = root as { [key: string]: unknown };
  for (const key of path.slice(0, -1)) node = node[key as string] as { [key: string]: unknown };
  return node;
}
/** Sets (or with `undefined`, deletes) the value at `path`, defining `__proto__` as an own key. */
export function put(root: unknown, path: Path, value: unknown): void {
  const parent = parentOf(root, path);
  const key = path.at(-1) as string;
  if (value === undefined) delete parent[key];
  else Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
}

// Values of every JSON type; each field below is given one of the types it must not have.
const anyValue = fc.constantFrom<unknown>(0, 7.5, true, "text", "", null, [], [1], {}, { a: 1 });
const notA = (ok: (v: unknown) => boolean) => anyValue.filter((v) => !ok(v));
const isString = (v: unknown) => typeof v === "string";
const isObj = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
const isBool = (v: unknown) => typeof v === "boolean";

/** A corruption of the lock format: the path, the value put there (undefined: removed), and the field the message must name. */
export interface Corruption {
  readonly path: Path;
  readonly value: unknown;
  readonly field?: string;
  /** The tool the message must name, when the tool keeps its name. */
  readonly tool?: string;
}

const server = fc.constantFrom(...SERVERS);
const toolOf = (s: string) => fc.nat({ max: REAL.servers[s]!.tools.length - 1 });

/** One corruption of the lock format (the property tests' input). */
export const lockCorruption: fc.Arbitrary<Corruption> = fc.oneof(
  // The file itself.
  fc.record({
    path: fc.constant(["version"] as Path),
    value: fc.oneof(
      notA((v) => v === 1),
      fc.constant(undefined),
    ),
    field: fc.constant("version"),
  }),
  fc.record({
    path: fc.constant(["servers"] as Path),
    value: fc.oneof(notA(isObj), fc.constant(undefined)),
    field: fc.constant("servers"),
  }),
  // A server entry: wrong types, a missing tools array, unknown or prototype keys.
  server.chain((s) =>
    fc.oneof(
      fc.record({ path: fc.constant(["servers", s] as Path), value: notA(isObj) }),
      fc.record({
        path: fc.constant(["servers", s, "tools"] as Path),
        value: fc.oneof(notA(Array.isArray), fc.constant(undefined)),
        field: fc.constant("tools"),
      }),
      fc.record({ path: fc.constant(["servers", s, "fingerprint"] as Path), value: notA(isString), field: fc.constant("fingerprint") }),
      fc.record({ path: fc.constant(["servers", s, "fingerprints"] as Path), value: notA(isObj), field: fc.constant("fingerprints") }),
      fc.record({
        path: fc.constant(["servers", s, "instructions"] as Path),
        value: notA((v) => isString(v) || v === null),
        field: fc.constant("instructions"),
      }),
      fc.record({ path: fc.constant(["servers", s, "serverInfo"] as Path), value: notA(isObj), field: fc.constant("serverInfo") }),
      fc.record({ path: fc.constant(["servers", s, "prompts"] as Path), value: notA(Array.isArray), field: fc.constant("prompts") }),
      fc.record({ path: fc.constant(["servers", s, "__proto__"] as Path), value: anyValue, field: fc.constant("__proto__") }),
      fc.record({ path: fc.constant(["servers", s, "constructor"] as Path), value: anyValue, field: fc.constant("constructor") }),
      // One tool: its fields, by the types the MCP schema gives them.
      toolOf(s).chain((i) => {
        const name = REAL.servers[s]!.tools[i]!.name;
        const at = (...rest: string[]) => ["servers", s, "tools", i, ...rest] as Path;
        return fc
          .oneof(
            fc.record({ path: fc.constant(at()), value: notA(isObj), field: fc.constant(`tools[${i}]`) }),
            fc.record({
              path: fc.constant(at("name")),
              value: fc.oneof(
                notA((v) => isString(v) && v !== ""),
                fc.constant(undefined),
              ),
              field: fc.constant(`tools[${i}].name`),
            }),
            fc.record({
              path: fc.constant(at("inputSchema")),
              value: fc.oneof(notA(isObj), fc.constant(undefined)),
              field: fc.constant("inputSchema"),
            }),
            fc.record({
              path: fc.constant(at("inputSchema", "type")),
              value: fc.oneof(
                notA((v) => v === "object"),
                fc.constant(undefined),
              ),
              field: fc.constant("inputSchema.type"),
            }),
            fc.record({
              path: fc.constant(at("inputSchema", "properties")),
              value: notA(isObj),
              field: fc.constant("inputSchema.properties"),
            }),
            fc.record({
              path: fc.constant(at("inputSchema", "required")),
              value: notA(Array.isArray),
              field: fc.constant("inputSchema.required"),
            }),
            fc.record({ path: fc.constant(at("outputSchema")), value: notA(isObj), field: fc.constant("outputSchema") }),
            fc.record({ path: fc.constant(at("description")), value: notA(isString), field: fc.constant("description") }),
            fc.record({ path: fc.constant(at("title")), value: notA(isString), field: fc.constant("title") }),
            fc.record({ path: fc.constant(at("annotations")), value: notA(isObj), field: fc.constant("annotations") }),
            fc.record({
              path: fc.constant(at("annotations", "readOnlyHint")),
              value: notA(isBool),
              field: fc.constant("annotations.readOnlyHint"),
            }),
            fc.record({ path: fc.constant(at("_meta")), value: notA(isObj), field: fc.constant("_meta") }),
          )
          .map((c) => ({ ...c, tool: c.field?.startsWith("tools[") ? undefined : name }));
      }),
    ),
  ),
);
