/**
 * `createStdioCaller`: an MCP caller for a server started as a child process. Connects lazily,
 * restarts a crashed server with backoff on the next call, and fails in-flight calls as values.
 * The session itself (shared connect, calls, lists, close) is the core's; this file spawns.
 */

import type { WireFault } from "../failure/wire-fault.js";
import { createConnectBudget, type EraPreference, effectiveEra, openSession } from "../protocol/mcp-client.js";
import type { Outcome } from "../protocol/mcp-session.js";
import { createRpcPeer } from "../protocol/rpc-peer.js";
import { configuredEnvValues, type EnvSpec } from "../transport/environment.js";
import { type StdioProcess, type StdioProcessEvents, startStdioProcess } from "../transport/stdio-process.js";
import type { SessionCaller, SessionCallerOptions } from "./caller.js";
import { callerPrototype, liveOf } from "./caller-prototype.js";
import { type ConnectorLink, connectionOn, type SessionConnection, type SessionConnector } from "./connector.js";
import { createSessionCore } from "./session-core.js";

/** Options for `createStdioCaller`. */
export interface StdioCallerOptions extends SessionCallerOptions {
  /** Server name used in failures. Defaults to the command's base name. */
  readonly name?: string;
  readonly command: string;
  readonly args?: readonly string[];
  /** `NAME` entries pass the parent's value through; `KEY=VALUE` entries are literals. */
  readonly env?: EnvSpec;
  readonly cwd?: string;
  /** `legacy` (default): `initialize`. `auto`: `server/discover` probe, then `initialize`. `2026-07-28`: that revision only. */
  readonly era?: EraPreference;
  /** Time allowed for the `server/discover` probe in `auto` mode. Default min(connect timeout, 3 s). */
  readonly probeTimeoutMs?: number;
  /** Lines on stdout that are not JSON-RPC. */
  readonly onNoise?: (reason: string) => void;
  readonly maxMessageBytes?: number;
  readonly stderrBytes?: number;
  readonly closeGraceMs?: number;
  /** First restart delay after a crash; doubles per consecutive failure up to `maxRestartDelayMs`. */
  readonly restartDelayMs?: number;
  readonly maxRestartDelayMs?: number;
}

/** A stdio caller. */
export interface StdioCaller extends SessionCaller {
  /** pid of the live child, if any. */
  readonly pid: number | undefined;
  /** stderr kept from the current or last child. */
  stderrTail(): string;
  close(): Promise<void>;
}

interface StdioConnection extends SessionConnection {
  readonly process: StdioProcess;
}

// `pid` reads the live child; a getter on the shared prototype (caller-prototype.ts).
const STDIO_CALLER = callerPrototype({
  get pid() {
    return liveOf<StdioConnection>(this)?.process.pid;
  },
});

/** Until the peer exists; nothing can arrive before it does. */
const ignoreMessage = (): void => {};

/** Creates a caller for a stdio MCP server. Nothing is spawned until the first call or `connect()`. */
export function createStdioCaller(options: StdioCallerOptions): StdioCaller {
  const server = options.name ?? options.command.split(/[\\/]/).pop() ?? options.command;
  let lastStderr = "";
  const core = createSessionCore<StdioConnection>(
    {
      server,
      options,
      // stdio defaults to the legacy handshake: probing costs a round trip on every spawn.
      era: effectiveEra(options.era ?? (options.protocolVersion ? "auto" : "legacy"), options.protocolVersion),
      // Configured env values are secrets: a server may echo them to stderr before it dies.
      secrets: configuredEnvValues(options.env),
      listen: options.onNotification !== undefined || options.onListChanged !== undefined,
      warn: (message) => options.onNoise?.(message),
      restart: { delayMs: options.restartDelayMs, maxDelayMs: options.maxRestartDelayMs },
      prototype: STDIO_CALLER,
    },
    (link) =>
      createStdioConnector(options, link, (tail) => {
        // Kept across connections: after a crash there is no live process, and stderrTail() must still say why.
        if (tail) lastStderr = tail;
        return lastStderr;
      }),
  );
  // `pid` comes from STDIO_CALLER. stderrTail holds the two functions it needs, not the core handle.
  const { live, scrub } = core;
  return core.caller({
    stderrTail: () => scrub(live()?.process.stderrTail() ?? lastStderr),
  }) as StdioCaller;
}

/** Spawns the server per connection; `keepStderr` records the last stderr seen and answers the kept one. */
function createStdioConnector(
  options: StdioCallerOptions,
  link: ConnectorLink<StdioConnection>,
  keepStderr: (tail: string) => string,
): SessionConnector<StdioConnection> {
  /** Processes being stopped after a failed connect (made by the first); close() waits for every one of them. */
  let stopping: Set<Promise<void>> | undefined;
  // One for every connection of this caller (a closure made in spawn() would be one per connection).
  const noise = (reason: string) => options.onNoise?.(reason);
  function stopInBackground(conn: StdioConnection): void {
    const done = conn.process.close().finally(() => stopping?.delete(done));
    stopping ??= new Set();
    stopping.add(done);
  }

  function spawn(): StdioConnection {
    let conn: StdioConnection | undefined;
    // The process first, so the peer writes straight into it (no frame of ours per message); the
    // peer's receive is handed to the events after, before any output can arrive (the next I/O turn).
    const events: { -readonly [K in keyof StdioProcessEvents]: StdioProcessEvents[K] } = {
      onMessage: ignoreMessage,
      onNoise: noise,
      onOversizeEnd: ({ bytes, id }) => {
        const limit = options.maxMessageBytes ?? 16 * 1024 * 1024;
        const message = `answer of ${bytes} bytes exceeds the ${limit}-byte message size limit`;
        // Only the request it answered fails; the session goes on. An oversize notification has no one to tell.
        if (id !== undefined) peer.fail(id, { type: "transport", code: "EOVERSIZE", message });
      },
      onExit: (fault: WireFault) => {
        if (fault.type === "transport" && fault.stderrTail) keepStderr(fault.stderrTail);
        if (conn) {
          conn.listen?.abort();
          link.lost(conn);
        }
        link.crashed(); // counts toward the restart backoff, so a crash-looping server is not respawned at once
        peer.failAll(fault);
      },
      // stdin is gone before "close" arrived (EPIPE after a crash): the connection is dead now.
      // Keeping it current would fail every retry at once, in microtasks that never let "close" run.
      onUnwritable: () => {
        if (conn) link.lost(conn);
      },
    };
    const proc = startStdioProcess(
      {
        command: options.command,
        ...(options.args ? { args: options.args } : {}),
        ...(options.env ? { env: options.env } : {}),
        ...(options.cwd ? { cwd: options.cwd } : {}),
        ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
        ...(options.stderrBytes ? { stderrBytes: options.stderrBytes } : {}),
        ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
      },
      events,
    );
    const peer = createRpcPeer({
      send: proc.send,
      onNotification: (notification) => {
        if (conn) link.notification(conn, notification);
      },
      ...(link.handlers ? { handlers: link.handlers } : {}),
      ...(options.onNoise ? { onProtocolNoise: options.onNoise } : {}),
      ...(options.wiretap ? { wiretap: options.wiretap } : {}),
      // The child and its pipes keep the process alive while it runs, and its exit fails every
      // request: the deadline timer needs no ref (and no ref/unref pair per call).
      holdsProcess: true,
    });
    // The peer reads each message itself: no frame of ours in between.
    events.onMessage = peer.receive;
    conn = connectionOn(peer, { process: proc });
    return conn;
  }

  return {
    async open(signal): Promise<Outcome<StdioConnection>> {
      const conn = spawn();
      const outcome = await openSession(conn.peer, link.identity, link.era, {
        budget: createConnectBudget(options.connectTimeoutMs ?? 10_000),
        probeTimeoutMs: options.probeTimeoutMs ?? 3000,
        signal,
      });
      if (!outcome.ok) {
        conn.alive = false;
        // The failure answers now, at its deadline; stopping the process (stdin, SIGTERM, SIGKILL with
        // their grace periods) goes on in the background, and close() waits for it.
        stopInBackground(conn);
        const tail = keepStderr(conn.process.stderrTail());
        const fault = outcome.fault;
        // Crashes and hangs are what stderr explains; a server that answered with an error was running.
        if (fault.type === "transport" || fault.type === "timeout") {
          return { ok: false, fault: { ...fault, ...(tail ? { stderrTail: tail } : {}) } as WireFault };
        }
        return outcome;
      }
      conn.session = outcome.value;
      // The process exited right after answering initialize: the session is dead on arrival.
      if (!conn.alive)
        return {
          ok: false,
          fault: { type: "transport", code: "EXIT", message: "server exited during initialize", stderrTail: keepStderr("") },
        };
      return { ok: true, value: conn };
    },
    async dispose(conn) {
      if (conn.listen) {
        conn.listen.abort();
        // Let the peer write notifications/cancelled for the listen request before stdin ends.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await conn.process.close();
    },
    async close() {
      // A loop: a connect failing during close() may start one more stop while the others are awaited.
      while (stopping !== undefined && stopping.size > 0) await Promise.all([...stopping]);
    },
  };
}
