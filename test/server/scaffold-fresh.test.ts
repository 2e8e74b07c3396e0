/**
 * The conformance server runs on a generated scaffold (test/conformance/server/gen): the committed
 * files must equal a fresh generation, and every declared tool must be bound to a handler.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { camelName, generate, resolveDesign } from "@toolwright/codegen";
import { describe, expect, it, vi } from "vitest";
import { conformanceServer } from "../conformance/server/design.js";
import scaffoldDesign from "../conformance/server/scaffold-design.js";
import { createScaffoldedConformanceServer } from "../conformance/server/scaffold-server.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const designPath = join(repo, "test/conformance/server/scaffold-design.ts");
const committed = join(repo, "test/conformance/server/gen");

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort();
}

describe("conformance server scaffold", () => {
  it("committed gen/ equals a fresh generation (toolwright gen test/conformance/server/scaffold-design.ts --out test/conformance/server/gen)", async () => {
    const files = await generate(resolveDesign(scaffoldDesign, { file: "test/conformance/server/scaffold-design.ts", designPath }));
    expect(listFiles(committed)).toEqual([...files.keys()]);
    for (const [path, text] of files) expect(readFileSync(join(committed, path), "utf8"), path).toBe(text);
  });

  it("the adapter's method names are the generated ones", () => {
    const ir = resolveDesign(scaffoldDesign, { file: "test/conformance/server/scaffold-design.ts", designPath });
    const tools = ir.mcpServers[0]?.toolset.tools ?? [];
    expect(tools).toHaveLength(conformanceServer.tools.length);
    for (const t of tools) expect(camelName(t.name), t.name).toBe(t.localName);
  });

  it("binds a handler to every declared tool, lists them all, and runs one", async () => {
    const server = createScaffoldedConformanceServer();
    const sent: unknown[] = [];
    const session = server.openSession({ send: (m) => void sent.push(m) });
    session.receive({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    });
    session.receive({ jsonrpc: "2.0", method: "notifications/initialized" });
    session.receive({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    await vi.waitFor(() => expect(sent.some((m) => (m as { id?: number }).id === 2)).toBe(true), { timeout: 30_000 });
    const list = sent.find((m) => (m as { id?: number }).id === 2) as { result: { tools: { name: string }[] } };
    expect(list.result.tools.map((t) => t.name)).toEqual(conformanceServer.tools.map((t) => t.name));
    session.receive({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "test_simple_text", arguments: {} } });
    await vi.waitFor(() => expect(sent.some((m) => (m as { id?: number }).id === 3)).toBe(true), { timeout: 30_000 });
    const call = sent.find((m) => (m as { id?: number }).id === 3) as { result: { content: { text: string }[] } };
    expect(call.result.content[0]?.text).toBe("This is a simple text response for testing.");
    session.close();
  });
});
