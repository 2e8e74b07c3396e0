/**
 * A leak check around one test file: started before its first test, and asserted empty (no
 * processes, handles, warnings or listeners left) after `cleanup` ran at the end.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { createLeakCheck, type LeakCheck } from "./leak-check.js";

/** Registers the file-level hooks. `cleanup` runs first in afterAll (close callers, kill strays). */
export function guardLeaks(cleanup?: () => void | Promise<void>): void {
  let leaks: LeakCheck | undefined;
  beforeAll(() => {
    leaks = createLeakCheck();
  });
  afterAll(async () => {
    await cleanup?.();
    const report = await (leaks as LeakCheck).check();
    leaks?.dispose();
    expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
  });
}
