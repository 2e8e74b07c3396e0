/**
 * The deadline for loading a design, and the `--load-timeout` flag `gen` and `pull` share. Kept
 * apart from load-design.ts so the CLI can declare the flag without importing tsx.
 */

/** How long loading a design may take by default: its top-level code and every `await` in it. */
export const DEFAULT_LOAD_TIMEOUT_MS = 30_000;

/** The `--load-timeout` flag gen and pull share. */
export const loadTimeoutOption = {
  type: "number",
  default: DEFAULT_LOAD_TIMEOUT_MS,
  describe: "Milliseconds allowed for loading the design (its top-level code and awaits); exit 2 when it does not finish",
} as const;

/** yargs check for `--load-timeout`. */
export function checkLoadTimeout(a: { readonly [key: string]: unknown }): true | string {
  const t = a.loadTimeout;
  return (typeof t === "number" && Number.isFinite(t) && t > 0) || "--load-timeout must be a positive number of milliseconds";
}

let killWhenStuck = false;

/**
 * Lets `loadDesign` end the whole process when a design is stuck in synchronous code past its
 * deadline (no timer can fire then). Only the `toolwright` executable turns this on: a library
 * caller's process is not ours to end.
 */
export function killProcessWhenLoadIsStuck(): void {
  killWhenStuck = true;
}

/** True when `killProcessWhenLoadIsStuck()` was called. */
export function killsProcessWhenLoadIsStuck(): boolean {
  return killWhenStuck;
}
