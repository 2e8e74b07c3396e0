// serveStdio over in-memory streams: framing, garbage, oversize lines, end of input, close().
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { serveStdio } from "../../packages/runtime/src/server.js";
import { createDemoServer } from "./fixtures/demo-server.js";

function harness(maxMessageBytes?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: { [key: string]: unknown }[] = [];
  let buffer = "";
  stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      lines.push(JSON.parse(buffer.slice(0, nl)) as { [key: string]: unknown });
      buffer = buffer.slice(nl + 1);
    }
  });
  const handle = serveStdio(createDemoServer(), { stdin, stdout, ...(maxMessageBytes ? { maxMessageBytes } : {}) });
  const until = async (count: number) => {
    while (lines.length < count) await new Promise((r) => setTimeout(r, 1));
  };
  return { stdin, lines, handle, until };
}

describe("serveStdio framing", () => {
  it("answers messages split across chunks and CRLF endings, and reports garbage as -32700", async () => {
    const { stdin, lines, handle, until } = harness();
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    stdin.write(ping.slice(0, 10));
    stdin.write(`${ping.slice(10)}\r\n{oops\n`);
    await until(2);
    expect(lines).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: non-JSON line: {oops" } },
    ]);
    stdin.end();
    await handle.closed;
  });

  it("drops an oversized line with a parse error and keeps serving", async () => {
    const { stdin, lines, handle, until } = harness(200);
    stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "x".repeat(500) } } })}\n`,
    );
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })}\n`);
    await until(2);
    expect(lines[0]).toMatchObject({ id: null, error: { code: -32700, message: expect.stringContaining("larger than 200 bytes") } });
    expect(lines[1]).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    handle.close();
    await handle.closed;
  });

  it("end of input aborts in-flight calls and nothing more is written", async () => {
    const { stdin, lines, handle, until } = harness();
    stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", arguments: { steps: 1000 }, _meta: { progressToken: 1 } } })}\n`,
    );
    await until(1); // first progress notification: the handler is running
    stdin.end();
    await handle.closed;
    const count = lines.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(lines).toHaveLength(count);
    expect(lines.some((l) => l.id === 1)).toBe(false);
  });
});
