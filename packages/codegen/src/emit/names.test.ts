import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { camelName, fileStem, isSafeIdentifier, pascalName, providerNames } from "./names.js";

describe("identifier sanitizing", () => {
  it.each([
    ["get-sum", "getSum", "GetSum"],
    ["get_structured_content", "getStructuredContent", "GetStructuredContent"],
    ["class.new", "classNew", "ClassNew"],
    ["GET_SUM", "getSum", "GetSum"],
    ["getSum", "getSum", "GetSum"],
    ["delete", "delete_", "Delete"],
    ["constructor", "constructor_", "Constructor"],
    ["__proto__", "proto", "Proto"],
    ["3d-render", "_3dRender", "_3dRender"],
    ["café-crème", "cafeCreme", "CafeCreme"],
    ["検索", "u691cU7d22", "U691cU7d22"],
    ["", "_", "_"],
    ["---", "_", "_"],
  ])("%j -> %s / %s", (input, camel, pascal) => {
    expect(camelName(input)).toBe(camel);
    expect(pascalName(input)).toBe(pascal);
  });

  it("file stems never escape their folder", () => {
    expect(fileStem("../../etc")).toBe("etc");
    expect(fileStem("..")).toBe("_");
    expect(fileStem("My.Weird-Tools")).toBe("my-weird-tools");
  });

  it("any string gives a safe identifier", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (name) => {
        expect(isSafeIdentifier(camelName(name))).toBe(true);
        expect(isSafeIdentifier(pascalName(name))).toBe(true);
        expect(fileStem(name)).toMatch(/^[a-z0-9_-]+$/);
      }),
    );
  });
});

describe("provider-safe names", () => {
  it("keeps plain names and hashes clashes and long names", () => {
    const names = providerNames([
      { id: "a.b_c", toolset: "a", name: "b_c" },
      { id: "a_b.c", toolset: "a_b", name: "c" },
      { id: "ts.ok", toolset: "ts", name: "ok" },
      { id: `ts.${"x".repeat(80)}`, toolset: "ts", name: "x".repeat(80) },
    ]);
    expect(names[0]).toMatch(/^a_b_c_[0-9a-f]{8}$/);
    expect(names[1]).toMatch(/^a_b_c_[0-9a-f]{8}$/);
    expect(names[0]).not.toBe(names[1]);
    expect(names[2]).toBe("ts_ok");
    expect(names[3]).toHaveLength(64);
  });

  it("are always [A-Za-z0-9_-]{1,64}, unique and stable", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 })), { selector: ([t, n]) => `${t}.${n}` }),
        (pairs) => {
          const tools = pairs.map(([toolset, name]) => ({ id: `${toolset}.${name}`, toolset, name }));
          const names = providerNames(tools);
          for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
          expect(new Set(names).size).toBe(names.length);
          expect(providerNames(tools)).toEqual(names);
        },
      ),
    );
  });
});
