/**
 * Prototype-free maps for generated code: a map keyed by names from a design or a server (tool
 * names, field paths, toolsets) must not answer `constructor`, `toString` or `__proto__` from
 * `Object.prototype`, and a key named `__proto__` must stay an ordinary entry.
 */

/** Detaches `map` from `Object.prototype` in place and returns it, typed as given. */
export function prototypeFree<T extends object>(map: T): T {
  Object.setPrototypeOf(map, null);
  return map;
}
