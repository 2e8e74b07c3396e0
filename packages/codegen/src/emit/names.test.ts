import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { camelName, fileStem, isSafeIdentifier, memberName, pascalName, providerNames, RESERVED_MEMBERS } from "./names.js";

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

describe("provider-safe names: transliteration and stable hashes", () => {
  const one = (toolset: string, name: string) => providerNames([{ id: `${toolset}.${name}`, toolset, name }])[0];

  it("separators map to _ without a hash; lost characters add a hash of the id", () => {
    expect(one("ts", "a.b c/d")).toBe("ts_a_b_c_d");
    expect(one("ts", "café")).toMatch(/^ts_cafe_[0-9a-f]{6}$/);
    expect(one("uni", "code🔥🔥🔥")).toMatch(/^uni_code_[0-9a-f]{6}$/);
    expect(one("ts", "検索")).toMatch(/^ts_[0-9a-f]{6}$/);
  });

  it("unicode names no longer become order-dependent runs of underscores", () => {
    const tools = ["uni-code🔥", "uni-code🧪", "uni-code✨"].map((name) => ({ id: `t.${name}`, toolset: "t", name }));
    const forward = providerNames(tools);
    const backward = providerNames([...tools].reverse()).reverse();
    expect(forward).toEqual(backward);
    for (const n of forward) expect(n).toMatch(/^t_uni-code_[0-9a-f]{6}$/);
    expect(new Set(forward).size).toBe(3);
  });

  it("the result never depends on the order of the tools", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[ab._\- é]{1,4}$/), { minLength: 1, maxLength: 12 }), (tails) => {
        const tools = tails.map((name) => ({ id: `t.${name}`, toolset: "t", name }));
        const forward = providerNames(tools);
        const backward = providerNames([...tools].reverse()).reverse();
        expect(backward).toEqual(forward);
        // A tool whose <toolset>_<tool> is already safe keeps it exactly.
        tools.forEach((t, i) => {
          if (/^[A-Za-z0-9_-]+$/.test(t.name)) expect(forward[i]).toBe(`t_${t.name}`);
        });
      }),
    );
  });

  it("members that would change an object's contract are renamed", () => {
    expect(memberName("then")).toBe("then_");
    expect(memberName("valueOf")).toBe("valueOf_");
    expect(memberName("search")).toBe("search");
    for (const key of Object.getOwnPropertyNames(Object.prototype)) expect(RESERVED_MEMBERS.has(key)).toBe(true);
  });
});
