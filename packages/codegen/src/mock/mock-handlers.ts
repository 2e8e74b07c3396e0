/**
 * `toolwright mock --handlers FILE`: the mock's handlers from a module of the user's, so a mock
 * served as a child process (stdio, or HTTP on 127.0.0.1) answers with the test's own logic, not
 * defaults only. The module's default export is the object a test passes to
 * `create<Toolset>Mock(handlers)` in memory (`satisfies <Toolset>MockHandlers` types it), and the
 * child hands it to that same function, so every answer is checked against the output schema by
 * the same engine. The path is user input: anything but a regular file is refused, naming it.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** A generated `create<Toolset>Mock`. */
export type MockFactory = (handlers: object) => unknown;

const show = (path: string) => JSON.stringify(path);

/** The handler names a generated mock factory reads (its tools' member names), in its order. */
function handlerNames(factory: MockFactory): string[] {
  const read: string[] = [];
  // The generated factory reads `handlers.<member>` once per tool and nothing else: a recording
  // stand-in lists the names without parsing generated code.
  const probe = new Proxy(Object.create(null) as object, {
    get(_target, key) {
      if (typeof key === "string" && !read.includes(key)) read.push(key);
      return undefined;
    },
  });
  factory(probe);
  return read;
}

/**
 * Loads the handlers module at `path` (relative to `cwd`) for the mock `factory` makes. Throws
 * with the path named when it is not a file, has no default export object, exports a name the
 * toolset has no tool for, or a value that is not a function.
 */
export async function loadHandlers(path: string, cwd: string, toolset: string, factory: MockFactory): Promise<object> {
  const file = resolve(cwd, path);
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    throw new Error(`toolwright mock: --handlers ${show(path)}: no such file (resolved to ${show(file)})`);
  }
  if (!isFile) throw new Error(`toolwright mock: --handlers ${show(path)}: not a file (resolved to ${show(file)})`);
  const { tsImport } = await import("tsx/esm/api");
  let mod: { readonly default?: unknown };
  try {
    mod = (await tsImport(pathToFileURL(file).href, import.meta.url)) as { readonly default?: unknown };
  } catch (error) {
    throw new Error(
      `toolwright mock: --handlers ${show(path)}: the module failed to load: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const exported = mod.default;
  if (typeof exported !== "object" || exported === null || Array.isArray(exported)) {
    throw new Error(
      `toolwright mock: --handlers ${show(path)}: the module's default export must be the handlers object (export default { echo(payload, call) { ... } })`,
    );
  }
  const names = handlerNames(factory);
  // A prototype-free copy: a "__proto__" or "constructor" key of the module is a name like any other.
  const handlers: { [name: string]: unknown } = Object.create(null);
  for (const [name, value] of Object.entries(exported)) {
    if (!names.includes(name)) {
      throw new Error(
        `toolwright mock: --handlers ${show(path)}: toolset ${show(toolset)} has no tool for handler ${show(name)} (handlers: ${names.map(show).join(", ")})`,
      );
    }
    if (typeof value !== "function") throw new Error(`toolwright mock: --handlers ${show(path)}: handler ${show(name)} is not a function`);
    handlers[name] = value;
  }
  return handlers;
}
