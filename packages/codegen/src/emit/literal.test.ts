import { describe, expect, it } from "vitest";
import { docName, docText, printKey, printLiteral } from "./literal.js";

describe("literals", () => {
  it("prints keys safely", () => {
    expect(printKey("name")).toBe("name");
    expect(printKey("get-sum")).toBe('"get-sum"');
    expect(printKey("enum")).toBe('"enum"');
    expect(printKey("constructor")).toBe("constructor");
    expect(printKey("__proto__")).toBe('["__proto__"]');
  });

  it("a printed object literal evaluates back to the same JSON, __proto__ key included", () => {
    const value = JSON.parse(`{"a":[1,"x",null,{"b":true}],"__proto__":{"c":2},"we-ird":"*/","n":-0.5,"long":["${"y".repeat(120)}"]}`);
    const text = printLiteral(value);
    const back = new Function(`return (${text});`)() as unknown;
    expect(JSON.stringify(back)).toBe(JSON.stringify(value));
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
  });

  it("keeps comment terminators and newlines out of JSDoc", () => {
    expect(docText("a */ b\nc")).toBe("a *\\/ b\n * c");
    expect(docName("x*/y")).toBe('"x*\\/y"');
  });
});
