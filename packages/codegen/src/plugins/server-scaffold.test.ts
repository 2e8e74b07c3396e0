import { design, mcpServer, number, object } from "@toolwright/dsl";
import { describe, expect, it } from "vitest";
import { generate } from "../generate.js";
import { resolveDesign } from "../resolve/resolve.js";
import { serverNames } from "../resolve/symbols.js";

const tool = { input: object({ n: number() }) };

describe("server scaffold plugin", () => {
  it("names: a trailing Server is not doubled", () => {
    const ir = resolveDesign(
      design({ servers: [mcpServer("calc-server", { version: "1" }, (t) => t.tool("x", tool)), mcpServer("calc", { version: "1" })] }),
      { file: "d.ts" },
    );
    expect(ir.mcpServers.map((s) => serverNames(s).create)).toEqual(["createCalcServer", "createCalcServer"]);
    expect(serverNames(ir.mcpServers[0]!)).toMatchObject({
      dir: "servers/calc-server",
      handlers: "CalcServerHandlers",
      serve: "serveCalcServer",
      info: "calcServerInfo",
    });
  });

  it("two servers whose output folders collide are a design error naming both, found by the resolver", () => {
    const resolve = () =>
      resolveDesign(
        design({
          servers: [
            mcpServer("a.b", { version: "1" }, (t) => t.tool("x", tool)),
            mcpServer("a-b", { version: "1" }, (t) => t.tool("x", tool)),
          ],
        }),
        { file: "d.ts" },
      );
    expect(resolve).toThrow('d.ts server "a-b": its output folder servers/a-b collides with server "a.b"; rename one');
  });

  it("emits types, validators, the server module and an index per server", async () => {
    const ir = resolveDesign(
      design({ servers: [mcpServer("calc", { version: "1" }, (t) => t.tool("add", { ...tool, output: object({ n: number() }) }))] }),
      { file: "d.ts" },
    );
    const files = await generate(ir);
    expect([...files.keys()]).toEqual([
      "servers/calc/index.ts",
      "servers/calc/server.gen.ts",
      "servers/calc/types.gen.ts",
      "servers/calc/validators.gen.ts",
    ]);
    const server = files.get("servers/calc/server.gen.ts") ?? "";
    expect(server).toContain("decodeResult: createDecoder<AddResult>(validateAddResult)");
    expect(server).toContain('$schema: "https://json-schema.org/draft/2020-12/schema"');
    expect(files.get("servers/calc/index.ts")).toContain(
      'export { calcServerInfo, createCalcServer, serveCalcServer } from "./server.gen.js";',
    );
  });
});
