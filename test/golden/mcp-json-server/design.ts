/**
 * Golden case: servers declared once, in mcp.json. `memory` is pulled (the lock came from a real
 * `toolwright pull` of server-memory, connected through the manager's config loader) and `search`
 * has inline tools; both get `create<Server>Caller` from their mcp.json entries. Env and header
 * literals (API_TOKEN, X-Static-Key) must not reach generated code; `${VAR}` references stay
 * references. Refresh: toolwright pull test/golden/mcp-json-server/design.ts (from the repo root).
 */
import { design, externalServer, fromExternalMCP, fromMCP, mcpJson, object, string, toolset } from "@toolwright/dsl";

const memory = externalServer("memory", mcpJson());
const search = externalServer("search", mcpJson(".toolwright/mcp.json"));

export default design({
  toolsets: [
    toolset("memory", fromMCP(memory)),
    toolset("search", fromExternalMCP("search"), (t) => {
      t.tool("query", { description: "Full-text search", input: object({ q: string({ minLength: 1 }) }) });
    }),
  ],
  servers: [search],
});
