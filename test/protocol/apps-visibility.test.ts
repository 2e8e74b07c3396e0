/**
 * MCP Apps on the planner side: a live server lists an app-only tool (`_meta.ui.visibility:
 * ["app"]`) next to a model tool. Through the manager's registry, provider definitions never offer
 * the app-only tool and a model call naming it is refused before anything is sent; the app's UI
 * resource stays readable.
 */
import { createRuntime, toolRequestFromModelCall } from "@toolwright/runtime";
import { createHttpCaller } from "@toolwright/runtime/http";
import { createProviderTools } from "@toolwright/runtime/providers";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createMcpManager, type McpManager, parseMcpConfig } from "../../packages/runtime/src/manager.js";
import { createToolServer, type HttpServerHandle, serveHttp } from "../../packages/runtime/src/server.js";

let http: HttpServerHandle;
let manager: McpManager;
const calls: string[] = [];
const runtime = createRuntime();

beforeAll(async () => {
  const server = createToolServer({
    name: "apps",
    version: "1.0.0",
    tools: [
      {
        name: "get_data",
        inputSchema: { type: "object" },
        _meta: { ui: { resourceUri: "ui://chart/view.html" } },
        handler: () => {
          calls.push("get_data");
          return { content: [{ type: "text", text: "[1,2,3]" }] };
        },
      },
      {
        name: "refresh_chart",
        inputSchema: { type: "object" },
        _meta: { ui: { resourceUri: "ui://chart/view.html", visibility: ["app"] } },
        handler: () => {
          calls.push("refresh_chart");
          return { content: [] };
        },
      },
    ],
    resources: [{ uri: "ui://chart/view.html", name: "chart", mimeType: "text/html;profile=mcp-app", read: () => "<div id=chart></div>" }],
  });
  http = await serveHttp(server);
  manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { apps: { url: http.url } } })), { registry: runtime });
  await manager.start();
});
afterAll(async () => {
  await manager.stop();
  await http.close();
});

it("provider definitions leave out the app-only tool", () => {
  expect(
    runtime
      .specs()
      .map((s) => s.name)
      .sort(),
  ).toEqual(["get_data", "refresh_chart"]);
  const tools = createProviderTools(runtime, { format: "openai-chat" });
  expect(tools.specs().map((s) => s.name)).toEqual(["get_data"]);
  expect(JSON.stringify(tools.definitions())).not.toContain("refresh_chart");
});

it("a model call naming the app-only tool is refused as unknown, and nothing is sent", async () => {
  const request = toolRequestFromModelCall({ id: "c1", name: "apps.refresh_chart", arguments: "{}" }, runtime);
  expect(request.rejection).toMatchObject({ kind: "invalid_call", reason: "tool_unavailable" });
  expect(request.rejection?.suggestions ?? []).not.toContain("apps.refresh_chart");
  const result = await runtime.execute(request);
  expect(result.ok).toBe(false);
  expect(calls).not.toContain("refresh_chart");
});

it("the app's UI resource can still be read", async () => {
  const caller = createHttpCaller({ url: http.url, name: "apps" });
  const read = await caller.readResource("ui://chart/view.html");
  await caller.close();
  expect(read).toEqual({
    ok: true,
    value: [{ uri: "ui://chart/view.html", mimeType: "text/html;profile=mcp-app", text: "<div id=chart></div>" }],
  });
});
