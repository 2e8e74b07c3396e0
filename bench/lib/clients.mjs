// One shape for the four clients under test: `{ connect, listTools, call, close }`.
// `toolwright` uses the built dist of @toolwright/runtime, `sdk` the official client 1.32.2,
// `sdk2` the split v2 client (@modelcontextprotocol/client 2.x), `raw` the hand-written floor.
// Every client sends the same `echo` call.
import { createRawHttpClient, createRawStdioClient } from "./raw-client.mjs";

/** The minimal environment handed to every server child. */
export function minimalEnv() {
  const env = {};
  for (const name of ["PATH", "HOME"]) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

async function toolwrightStdio({ command, args }) {
  const { createStdioCaller } = await import("@toolwright/runtime/stdio");
  const caller = createStdioCaller({ name: "bench", command, args, env: [] });
  return {
    async connect() {
      const out = await caller.connect();
      if (!out.ok) throw new Error(`connect failed: ${out.failure.message}`);
    },
    async listTools() {
      const out = await caller.listTools();
      if (!out.ok) throw new Error(out.failure.message);
      return out.value;
    },
    async call(args) {
      const out = await caller.callTool({ name: "echo", arguments: args });
      if (!out.ok) throw new Error(out.failure.message);
      return out.value;
    },
    close: () => caller.close(),
  };
}

async function toolwrightHttp({ url }) {
  const { createHttpCaller } = await import("@toolwright/runtime/http");
  const caller = createHttpCaller({ name: "bench", url });
  return {
    async connect() {
      if (caller.connect) {
        const out = await caller.connect();
        if (out && out.ok === false) throw new Error(`connect failed: ${out.failure.message}`);
      }
    },
    async listTools() {
      const out = await caller.listTools();
      if (!out.ok) throw new Error(out.failure.message);
      return out.value;
    },
    async call(args) {
      const out = await caller.callTool({ name: "echo", arguments: args });
      if (!out.ok) throw new Error(out.failure.message);
      return out.value;
    },
    close: () => caller.close(),
  };
}

async function sdkClient(transport, v2 = false) {
  const { Client } = v2 ? await import("@modelcontextprotocol/client") : await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: "sdk-bench-client", version: "1.0.0" });
  return {
    connect: () => client.connect(transport),
    async listTools() {
      return (await client.listTools()).tools;
    },
    async call(args) {
      const result = await client.callTool({ name: "echo", arguments: args });
      if (result.isError) throw new Error("isError");
      return result;
    },
    close: () => client.close(),
  };
}

async function sdkStdio({ command, args }) {
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  return sdkClient(new StdioClientTransport({ command, args, env: minimalEnv(), stderr: "ignore" }));
}

async function sdkHttp({ url }) {
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  return sdkClient(new StreamableHTTPClientTransport(new URL(url)));
}

async function sdk2Stdio({ command, args }) {
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  return sdkClient(new StdioClientTransport({ command, args, env: minimalEnv(), stderr: "ignore" }), true);
}

async function sdk2Http({ url }) {
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  return sdkClient(new StreamableHTTPClientTransport(new URL(url)), true);
}

/** Opens a client of `kind` (`toolwright` | `sdk` | `sdk2` | `raw`) over `transport` (`stdio` | `http`). */
export async function openClient(kind, transport, target) {
  if (transport === "stdio") {
    if (kind === "toolwright") return toolwrightStdio(target);
    if (kind === "sdk") return sdkStdio(target);
    if (kind === "sdk2") return sdk2Stdio(target);
    return createRawStdioClient({ ...target, env: minimalEnv() });
  }
  if (kind === "toolwright") return toolwrightHttp(target);
  if (kind === "sdk") return sdkHttp(target);
  if (kind === "sdk2") return sdk2Http(target);
  return createRawHttpClient(target);
}

/** True when the Toolwright HTTP caller is built and importable. */
export async function toolwrightHttpAvailable() {
  try {
    const mod = await import("@toolwright/runtime/http");
    return typeof mod.createHttpCaller === "function";
  } catch {
    return false;
  }
}
