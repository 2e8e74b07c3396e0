// The floor: hand-written JSON-RPC clients with nothing but what a call needs (no validation, no
// timeouts, no cancellation). Stdio over newline-delimited JSON, HTTP over node:http keep-alive.
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";

const INIT = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "raw-bench-client", version: "1.0.0" },
};

/** Starts a stdio server and speaks JSON-RPC to it. */
export function createRawStdioClient({ command, args, env }) {
  const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "ignore"] });
  const pending = new Map();
  let nextId = 1;
  let buffered = "";
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    let nl = buffered.indexOf("\n");
    while (nl !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const message = JSON.parse(line);
      const resolve = pending.get(message.id);
      if (resolve) {
        pending.delete(message.id);
        resolve(message);
      }
      nl = buffered.indexOf("\n");
    }
  });
  child.stdin.on("error", () => {});
  const rpc = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  return {
    pid: child.pid,
    async connect() {
      const init = await rpc("initialize", INIT);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
      return init.result;
    },
    async listTools() {
      return (await rpc("tools/list", {})).result.tools;
    },
    async call(args, name = "echo") {
      const message = await rpc("tools/call", { name, arguments: args });
      if (message.error) throw new Error(message.error.message);
      return message.result;
    },
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Parses the JSON-RPC response out of a JSON or SSE body. */
function parseBody(type, text) {
  if (!type.includes("text/event-stream")) return JSON.parse(text);
  for (const line of text.split("\n")) {
    if (line.startsWith("data:")) {
      const data = line.slice(5).trim();
      if (data === "") continue;
      const message = JSON.parse(data);
      if (message.id !== undefined) return message;
    }
  }
  throw new Error("no response in SSE body");
}

/** A Streamable HTTP client on node:http with a keep-alive agent. */
export function createRawHttpClient({ url }) {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true });
  let session;
  let nextId = 1;
  // A request on a pooled socket the server closed at that moment (its keep-alive timeout passed
  // while the socket sat idle) fails with ECONNRESET; like node's documentation advises, it is sent
  // once more on a fresh socket. Nothing else is retried.
  const post = (message, retried = false) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(message);
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": Buffer.byteLength(body),
        "mcp-protocol-version": INIT.protocolVersion,
      };
      if (session) headers["mcp-session-id"] = session;
      const req = request({ agent, host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers }, (res) => {
        const sid = res.headers["mcp-session-id"];
        if (typeof sid === "string") session = sid;
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          if (res.statusCode === 202) return resolve(undefined);
          if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
          try {
            resolve(parseBody(String(res.headers["content-type"] ?? ""), Buffer.concat(chunks).toString("utf8")));
          } catch (error) {
            reject(error);
          }
        });
        res.on("error", reject);
      });
      req.on("error", (error) => {
        if (!retried && req.reusedSocket && error.code === "ECONNRESET") post(message, true).then(resolve, reject);
        else reject(error);
      });
      req.end(body);
    });
  const rpc = (method, params) => post({ jsonrpc: "2.0", id: nextId++, method, params });
  return {
    async connect() {
      const init = await rpc("initialize", INIT);
      await post({ jsonrpc: "2.0", method: "notifications/initialized" });
      return init.result;
    },
    async listTools() {
      return (await rpc("tools/list", {})).result.tools;
    },
    async call(args, name = "echo") {
      const message = await rpc("tools/call", { name, arguments: args });
      if (message.error) throw new Error(message.error.message);
      return message.result;
    },
    /** Drops the connection but leaves the session open on the server (the RSS-per-session measure). */
    detach() {
      agent.destroy();
    },
    async close() {
      if (session) {
        await new Promise((resolve) => {
          const headers = { "mcp-session-id": session };
          const req = request(
            { agent, host: target.hostname, port: target.port, path: target.pathname, method: "DELETE", headers },
            (res) => {
              res.resume();
              res.on("end", resolve);
            },
          );
          req.on("error", resolve);
          req.end();
        });
      }
      agent.destroy();
    },
  };
}
