/**
 * One stateless 2026-07-28 request over plain fetch, with the routing headers the era requires
 * (MCP-Protocol-Version, Mcp-Method, Mcp-Name), for tests that need the raw HTTP answer.
 */

/** The HTTP status and the parsed JSON-RPC answer (undefined when the body is empty or not JSON). */
export interface ModernAnswer {
  readonly status: number;
  readonly body: { result?: unknown; error?: { code: number; message: string; data?: unknown } } | undefined;
}

/** Posts `method` with `params` (its `_meta` filled in) to `url`. */
export async function postModern(url: string, method: string, params: { readonly [key: string]: unknown }): Promise<ModernAnswer> {
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const name = method === "prompts/get" || method === "tools/call" ? params.name : method === "resources/read" ? params.uri : undefined;
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
  });
  const text = await response.text();
  let body: ModernAnswer["body"];
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}
