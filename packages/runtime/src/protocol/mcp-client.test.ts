import { describe, expect, it } from "vitest";
import { createHttpCaller } from "../caller/http-caller.js";
import { createStdioCaller } from "../caller/stdio-caller.js";
import { type EraPreference, effectiveEra } from "./mcp-client.js";

describe("era names", () => {
  it("a pinned era wins; otherwise a pinned protocol version implies its era, named as mcp.json names it", () => {
    expect(effectiveEra("legacy", "2026-07-28")).toBe("legacy");
    expect(effectiveEra("2026-07-28", undefined)).toBe("2026-07-28");
    expect(effectiveEra("auto", "2026-07-28")).toBe("2026-07-28");
    expect(effectiveEra(undefined, "2025-06-18")).toBe("legacy");
    expect(effectiveEra(undefined, undefined)).toBe("auto");
  });

  it('an unknown era (the old caller-only name "modern" included) is a TypeError at creation, not a silent legacy session', () => {
    const modern = "modern" as unknown as EraPreference;
    expect(() => effectiveEra(modern, undefined)).toThrow(/era must be "auto", "legacy" or "2026-07-28" \(got "modern"\)/);
    expect(() => createStdioCaller({ command: process.execPath, era: modern })).toThrow(TypeError);
    expect(() => createHttpCaller({ url: "http://127.0.0.1:9/mcp", era: modern })).toThrow(TypeError);
  });
});
