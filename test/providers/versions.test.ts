/**
 * Which SDK majors this run tests: Node 20 runs the root devDependencies (ai 6, openai 6); the
 * Node 22 run (vitest.node22.config.ts) must really resolve ai 7 and openai 7.
 */
import * as ai from "ai";
import * as aiTest from "ai/test";
import { VERSION as openaiVersion } from "openai/version";
import { describe, expect, it } from "vitest";

const node = Number(process.versions.node.split(".")[0]);

describe("SDK versions under test", () => {
  it(`Node ${process.versions.node} resolves the SDK majors for its run`, () => {
    // ai 7 added isStepCount and MockLanguageModelV4; ai 6 has neither.
    const ai7 = "isStepCount" in ai || "MockLanguageModelV4" in aiTest;
    if (node >= 22) {
      expect(ai7).toBe(true);
      expect(openaiVersion).toMatch(/^7\./);
    } else {
      expect(ai7).toBe(false);
      expect(openaiVersion).toMatch(/^6\./);
    }
  });
});
