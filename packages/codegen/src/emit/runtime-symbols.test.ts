import * as root from "@toolwright/runtime";
import * as codegen from "@toolwright/runtime/codegen";
import * as http from "@toolwright/runtime/http";
import * as stdio from "@toolwright/runtime/stdio";
import { describe, expect, it } from "vitest";
import { RUNTIME_CODEGEN, RUNTIME_HTTP, RUNTIME_STDIO, RUNTIME_SYMBOLS } from "./runtime-symbols.js";

const modules: { readonly [from: string]: object } = {
  [RUNTIME_CODEGEN]: codegen,
  "@toolwright/runtime": root,
  [RUNTIME_STDIO]: stdio,
  [RUNTIME_HTTP]: http,
};

describe("runtime symbol table", () => {
  it.each(Object.entries(RUNTIME_SYMBOLS).filter(([, s]) => !s.type))("value %s is exported where the table says", (name, symbol) => {
    const mod = modules[symbol.from] as { readonly [key: string]: unknown };
    expect(mod[name]).toBeDefined();
  });
});
