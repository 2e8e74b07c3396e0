#!/usr/bin/env node
/**
 * A scriptable, misbehaving MCP stdio server for fault tests. Plain JavaScript so it starts fast.
 * Each `tools/call` picks its misbehaviour by tool name (see TOOLS below); process-wide behaviour
 * comes from env: SCRIPTED_WIRE_LOG (append every inbound message, one JSON per line),
 * SCRIPTED_INIT=never|exit|dump-env, SCRIPTED_CRASH_RATE (probability that a call exits the process),
 * SCRIPTED_LIST (a JSON array of tool descriptors that tools/list returns instead of TOOLS).
 */
import { spawn } from "node:child_process";
import { appendFileSync, closeSync } from "node:fs";

const wireLog = process.env.SCRIPTED_WIRE_LOG;
const initMode = process.env.SCRIPTED_INIT ?? "normal";
const crashRate = Number(process.env.SCRIPTED_CRASH_RATE ?? "0");

function log(entry) {
  if (wireLog) appendFileSync(wireLog, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
}

let stdoutClosed = false;

function write(value) {
  if (stdoutClosed) return;
  process.stdout.write(`${typeof value === "string" ? value : JSON.stringify(value)}\n`);
}

const result = (id, res) => write({ jsonrpc: "2.0", id, result: res });
const text = (t, structured) => ({
  content: [{ type: "text", text: t }],
  ...(structured === undefined ? {} : { structuredContent: structured }),
});

/** Calls waiting for `notifications/cancelled` (tool `late`). */
const waitingForCancel = new Map();
/** Server-to-client requests waiting for the client's answer (tool `ask_client`). */
const waitingForClient = new Map();
let serverRequestSeq = 0;
/** Set by tool `stall_lists`: tools/list is received (and logged) but never answered. */
let stallLists = false;

const TOOLS = {
  /** Answers with its arguments. */
  echo: (id, args) => result(id, text(JSON.stringify(args), args)),
  /** Answers after `ms`. */
  slow: (id, args) => setTimeout(() => result(id, text(JSON.stringify(args), args)), Number(args.ms ?? 50)),
  /** Writes `stderr`, then exits with `code`, leaving this call unanswered. */
  exit: (_id, args) => {
    process.stderr.write(String(args.stderr ?? ""), () => process.exit(Number(args.code ?? 1)));
  },
  /** Never answers. */
  hang: () => {},
  /** Sends tools/list_changed, then leaves this call and every later tools/list unanswered. */
  stall_lists: () => {
    stallLists = true;
    write({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  },
  /** Writes raw `lines` to stdout (garbage, partial JSON...), then answers normally. */
  garbage: (id, args) => {
    for (const line of args.lines ?? []) process.stdout.write(`${line}\n`);
    if (args.raw) process.stdout.write(String(args.raw));
    result(id, text("after garbage", { survived: true }));
  },
  /** Writes the answer one byte-chunk at a time, to exercise reassembly. */
  dribble: (id, args) => {
    const line = Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", id, result: text(JSON.stringify(args), args) })}\n`);
    const step = Math.max(1, Number(args.step ?? 7));
    let at = 0;
    const next = () => {
      if (at >= line.length) return;
      process.stdout.write(line.subarray(at, at + step));
      at += step;
      setTimeout(next, 1);
    };
    next();
  },
  /** Answers with a text block of `bytes` characters (over the client's size limit). */
  oversize: (id, args) => result(id, text("x".repeat(Number(args.bytes ?? 1024)))),
  /** Sends responses for ids nobody asked for, then the real answer. */
  unknown_id: (id, args) => {
    write({ jsonrpc: "2.0", id: 987654, result: text("stray numeric") });
    write({ jsonrpc: "2.0", id: "nobody-asked", result: text("stray string") });
    write({ jsonrpc: "2.0", id: 987655, error: { code: -32603, message: "stray error" } });
    result(id, text(JSON.stringify(args), args));
  },
  /** Answers twice: the first answer counts, the second must be ignored. */
  duplicate: (id) => {
    result(id, text("first"));
    result(id, text("second"));
  },
  /** Sends progress every `everyMs` and never answers; stops when the client cancels. */
  progress_forever: (id, args, params) => {
    const token = params?._meta?.progressToken;
    let n = 0;
    const timer = setInterval(
      () => {
        if (token !== undefined)
          write({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: ++n } });
      },
      Number(args.everyMs ?? 20),
    );
    waitingForCancel.set(id, () => clearInterval(timer));
  },
  /** Answers only after the client cancels this call. */
  late: (id) => waitingForCancel.set(id, () => result(id, text("late answer"))),
  /** Sends a server-to-client request and returns the client's answer as structured content. */
  ask_client: (id, args) => {
    const sid = `srv-${++serverRequestSeq}`;
    waitingForClient.set(sid, (answer) => result(id, text(JSON.stringify(answer), answer)));
    write({ jsonrpc: "2.0", id: sid, method: String(args.method ?? "no/such-method"), params: args.params ?? {} });
  },
  /** Returns the process environment. */
  env: (id) => result(id, text(JSON.stringify(process.env), { env: { ...process.env } })),
  /** Returns argv and cwd. */
  argv: (id) => result(id, text(JSON.stringify(process.argv), { argv: process.argv.slice(2), cwd: process.cwd() })),
  /** Writes `text` to stderr, then answers. */
  stderr: (id, args) => process.stderr.write(String(args.text ?? ""), () => result(id, text("wrote stderr"))),
  /** Writes `mib` MiB to stderr (1 MiB chunks, respecting backpressure), then answers. */
  stderr_flood: (id, args) => {
    const chunk = Buffer.alloc(1024 * 1024, 0x65);
    let left = Number(args.mib ?? 16);
    const next = () => {
      while (left > 0) {
        left--;
        if (!process.stderr.write(chunk)) return void process.stderr.once("drain", next);
      }
      process.stderr.write("\nflood done\n", () => result(id, text("flooded")));
    };
    next();
  },
  /** Starts a long-lived grandchild in this process group and returns its pid. */
  grandchild: (id) => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    result(id, text(String(child.pid), { pid: child.pid }));
  },
  /** Closes stdout (no answer can ever come) but keeps running. */
  close_stdout: () => {
    stdoutClosed = true;
    closeSync(1);
    setInterval(() => {}, 1000);
  },
  /** Answers with a JSON-RPC error. */
  fail: (id, args) =>
    write({ jsonrpc: "2.0", id, error: { code: Number(args.code ?? -32603), message: String(args.message ?? "failed") } }),
};

function handle(msg) {
  if (msg.method === undefined) {
    const resolve = waitingForClient.get(msg.id);
    if (resolve) {
      waitingForClient.delete(msg.id);
      resolve({ id: msg.id, ...(msg.error ? { error: msg.error } : { result: msg.result }) });
    }
    return;
  }
  if (msg.id === undefined) {
    if (msg.method === "notifications/cancelled") {
      const late = waitingForCancel.get(msg.params?.requestId);
      if (late) {
        waitingForCancel.delete(msg.params.requestId);
        setTimeout(late, 5);
      }
    }
    return;
  }
  switch (msg.method) {
    case "initialize":
      if (initMode === "never") return;
      if (initMode === "dump-env") {
        // Free-form text, no KEY=VALUE, so only value-based redaction can catch it.
        const text = Object.entries(process.env)
          .map(([k, v]) => `${k} is ${v}`)
          .join("\n");
        process.stderr.write(`cannot start, my environment:\n${text}\n`, () => process.exit(7));
        return;
      }
      if (initMode === "exit") {
        process.stderr.write("refusing to initialize\n", () => process.exit(7));
        return;
      }
      result(msg.id, {
        protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "scripted-stdio-server", version: "1.0.0" },
      });
      return;
    case "ping":
      result(msg.id, {});
      return;
    case "tools/list":
      if (stallLists) return;
      // SCRIPTED_LIST: a JSON array of tool descriptors to list instead (hostile catalogues for pull).
      result(msg.id, {
        tools: process.env.SCRIPTED_LIST
          ? JSON.parse(process.env.SCRIPTED_LIST)
          : Object.keys(TOOLS).map((name) => ({ name, inputSchema: { type: "object" } })),
      });
      return;
    case "tools/call": {
      const name = msg.params?.name;
      const args = msg.params?.arguments ?? {};
      if (crashRate > 0 && Math.random() < crashRate) {
        process.stderr.write(`random crash during ${name}\n`, () => process.exit(3));
        return;
      }
      const tool = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
      if (!tool) {
        write({ jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: `Unknown tool: ${name}` } });
        return;
      }
      tool(msg.id, args, msg.params);
      return;
    }
    default:
      write({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
  }
}

log({ event: "start", argv: process.argv.slice(2), pgid: process.pid });
let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let nl = buffered.indexOf("\n");
  while (nl !== -1) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    nl = buffered.indexOf("\n");
    if (line.trim() === "") continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      log({ event: "bad-line", line });
      continue;
    }
    log({ event: "in", msg });
    handle(msg);
  }
});
process.stdin.on("end", () => process.exit(0));
