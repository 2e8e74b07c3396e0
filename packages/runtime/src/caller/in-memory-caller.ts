/**
 * Callers whose server runs in this process: the real MCP client session (handshake, `tools/call`,
 * lists, tasks, failures mapped like any caller's) over the in-memory transport to a message host
 * such as `createToolServer`. The caller layer may not import the server, so the host is injected;
 * the root entry wires `createInMemoryCaller` to the tool server.
 */

import type { WireFault } from "../failure/wire-fault.js";
import { createConnectBudget, effectiveEra, openSession } from "../protocol/mcp-client.js";
import type { Outcome } from "../protocol/mcp-session.js";
import type { CallToolResult } from "../protocol/mcp-types.js";
import { createRpcPeer, RpcHandlerError } from "../protocol/rpc-peer.js";
import { createInMemoryPipe, type InMemoryPipe, type MessageHost } from "../transport/in-memory.js";
import type { CallRequest, SessionCaller, SessionCallerOptions } from "./caller.js";
import { type ConnectorLink, connectionOn, type SessionConnection, type SessionConnector } from "./connector.js";
import { createSessionCore } from "./session-core.js";

/** Options for `createHostedCaller`. */
export interface HostedCallerOptions extends SessionCallerOptions {
  /** Server name used in failures. */
  readonly name: string;
  /** The server, or how to make it on the first connect (so its code loads only when used). */
  readonly host: MessageHost | (() => MessageHost | Promise<MessageHost>);
}

interface HostedConnection extends SessionConnection {
  readonly pipe: InMemoryPipe;
  /** The host said the server forgot this session (a replayed HTTP 404). */
  forgotten: boolean;
}

const closedFault: WireFault = { type: "transport", code: "ECLOSED", message: "the in-memory caller is closed" };
const hostClosedFault: WireFault = { type: "transport", code: "ECONNRESET", message: "the in-memory server closed the session" };

/** Creates a caller for a server in this process. Nothing is opened until the first call or `connect()`. */
export function createHostedCaller(options: HostedCallerOptions): SessionCaller {
  const core = createSessionCore<HostedConnection>(
    {
      server: options.name,
      options,
      // As over stdio: a probe would cost a round trip per connect, and the host speaks both eras.
      era: effectiveEra(options.era ?? (options.protocolVersion ? "auto" : "legacy"), options.protocolVersion),
      secrets: [], // no env or headers cross a process boundary here, so nothing is configured as secret
      listen: options.onNotification !== undefined || options.onListChanged !== undefined,
      warn: () => {},
    },
    (link) => createHostedConnector(options, link),
  );
  return core.caller({});
}

function createHostedConnector(options: HostedCallerOptions, link: ConnectorLink<HostedConnection>): SessionConnector<HostedConnection> {
  let host: Promise<MessageHost> | undefined;
  return {
    async open(signal): Promise<Outcome<HostedConnection>> {
      const made = options.host;
      // Made once and kept for reconnects, so a lazily loaded host loads once.
      host ??= Promise.resolve(typeof made === "function" ? made() : made);
      let target: MessageHost;
      try {
        target = await host;
      } catch (error) {
        // The next connect tries again: the host may have failed to load for a passing reason.
        host = undefined;
        const message = `the in-memory server could not be created: ${error instanceof Error ? error.message : String(error)}`;
        return { ok: false, fault: { type: "transport", code: "EHOST", message } };
      }
      let conn: HostedConnection | undefined;
      const pipe = createInMemoryPipe(target, (value) => peer.receive(value), {
        onHostClose: (fault) => {
          // The server hung up mid-session (a crash): what a stdio caller does on exit.
          if (conn) {
            conn.listen?.abort();
            link.lost(conn);
          }
          link.crashed();
          peer.failAll(fault ?? hostClosedFault);
        },
        onHostFault: (id, fault, sessionLost) => {
          if (sessionLost && conn) conn.forgotten = true;
          peer.fail(id, fault);
        },
      });
      const peer = createRpcPeer({
        send: (message) => pipe.send(message),
        onNotification: (notification) => {
          if (conn) link.notification(conn, notification);
        },
        ...(link.handlers ? { handlers: link.handlers } : {}),
        ...(options.wiretap ? { wiretap: options.wiretap } : {}),
      });
      conn = connectionOn(peer, { pipe, forgotten: false });
      const outcome = await openSession(peer, link.identity, link.era, {
        budget: createConnectBudget(options.connectTimeoutMs ?? 10_000),
        probeTimeoutMs: options.probeTimeoutMs ?? 3000,
        signal,
      });
      if (!outcome.ok) {
        pipe.close();
        return outcome;
      }
      conn.session = outcome.value;
      return { ok: true, value: conn };
    },
    // Only a fault the host marked: an in-memory session is never forgotten on its own.
    sessionLost: (conn) => conn.forgotten,
    async dispose(conn) {
      conn.alive = false;
      conn.listen?.abort();
      // The pipe first, then the waiting calls fail: nothing the host sends afterwards can settle them.
      conn.pipe.close();
      conn.peer.failAll(closedFault);
    },
  };
}

/** A tool handler for the in-memory caller. Return a result; throw to simulate a server error. */
export type InMemoryTool = (
  args: { readonly [key: string]: unknown },
  context: { readonly signal?: AbortSignal },
) => CallToolResult | Promise<CallToolResult>;

/** An in-memory caller for tests: tools are plain functions served by a real server, calls are recorded. */
export interface InMemoryCaller extends SessionCaller {
  /** Every request received, in order. */
  readonly calls: readonly CallRequest[];
}

/** A tool as a host serves it: the shape `createToolServer` takes, without naming the server. */
export interface HostedTool {
  readonly name: string;
  readonly inputSchema: { readonly [key: string]: unknown };
  readonly handler: (args: { readonly [key: string]: unknown }, context: { readonly signal: AbortSignal }) => Promise<CallToolResult>;
}

/**
 * An in-memory caller over the host `serve` makes from the tools. A handler's throw becomes the
 * JSON-RPC error -32603 the server sends (what "a server error" is on the wire); a tool error is
 * a returned `isError` result, and an unknown tool gets the server's own answer.
 */
export function createInMemoryCallerOn(
  server: string,
  tools: { readonly [name: string]: InMemoryTool },
  serve: (tools: readonly HostedTool[]) => MessageHost | Promise<MessageHost>,
): InMemoryCaller {
  const hosted = Object.entries(tools).map(([name, tool]): HostedTool => {
    // A programmer error, so it throws now rather than failing the first call.
    if (name === "") throw new TypeError(`createInMemoryCaller: server ${server} has a tool with an empty name`);
    return {
      name,
      // Any object: the handlers are plain test functions with no declared schema.
      inputSchema: { type: "object" },
      async handler(args, context) {
        try {
          return await tool(args, context);
        } catch (error) {
          // Wrapped, or the server would answer a bare "Internal error": the test sees the message it threw.
          throw error instanceof RpcHandlerError
            ? error
            : new RpcHandlerError(-32603, error instanceof Error ? error.message : String(error));
        }
      },
    };
  });
  const calls: CallRequest[] = [];
  const caller = createHostedCaller({ name: server, host: () => serve(hosted) });
  const call = caller.callTool;
  return Object.assign(caller, {
    calls,
    callTool(request: CallRequest, options?: Parameters<SessionCaller["callTool"]>[1]) {
      calls.push(request);
      return call(request, options);
    },
  });
}
