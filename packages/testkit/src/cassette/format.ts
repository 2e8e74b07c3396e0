/**
 * The cassette format (version 1): line-based JSON, one object per line, no timestamps and no ids
 * that change between two recordings of the same session, so a cassette is reviewable in a diff
 * and re-recording the same session gives the same bytes. The header's and every event's keys
 * are sorted; a message (`msg`) keeps the key order it had on the wire, so a replay hands the
 * client the very bytes the server sent (a server prints its keys in a fixed order, so this is
 * as stable as sorting, and a replayed result serialises exactly as the real one).
 *
 * ```text
 * {"cassette":1,"era":"2025-11-25","server":"everything","transport":"stdio"}
 * {"dir":"send","msg":{"id":1,"jsonrpc":"2.0","method":"initialize","params":{...}}}
 * {"dir":"recv","msg":{"id":1,"jsonrpc":"2.0","result":{...}}}
 * {"dir":"fault","fault":{"message":"...","status":401,"type":"http"},"id":2}
 * {"dir":"fault","end":true,"fault":{"code":"EXIT","exitCode":70,"message":"...","type":"transport"},"id":3}
 * ```
 *
 * The first line is the header; every other line is one event in the order the client saw it:
 * `send` (client to server), `recv` (server to client, as received) or `fault` (the transport
 * failed request `id`: an HTTP status, a reset or refused connection, an oversize answer; with
 * `end`, the transport itself ended, a process exit or a closed stream, failing every request in
 * flight, or none: then there is no `id`). A fault holds the runtime's wire-fault facts (`type`,
 * `message`, and `status`, `code`, `retryAfterMs`, `exitCode`, `signal`, `stderrTail` as they
 * apply), so a replay fails the request through the same mapping as the live session did.
 * Request ids are numbered in order of appearance, client and server requests apart; progress
 * tokens and task ids likewise.
 */

/** The cassette format version this kit writes and reads. */
export const CASSETTE_FORMAT = 1;

/** How the recorded session reached its server. */
export type CassetteTransport = "stdio" | "streamable-http" | "legacy-sse" | "in-memory";

/** The first line of a cassette. */
export interface CassetteHeader {
  readonly cassette: typeof CASSETTE_FORMAT;
  /** The server name the recording caller was given. */
  readonly server: string;
  readonly transport: CassetteTransport;
  /** The protocol revision the session spoke (`protocolVersion` of its handshake), if it got one. */
  readonly era?: string;
  /** HTTP only: whether the server assigned a session (`Mcp-Session-Id`); never its value. */
  readonly session?: boolean;
}

/** One recorded event after the header. */
export type CassetteEvent =
  | { readonly dir: "send"; readonly msg: JsonObject }
  | { readonly dir: "recv"; readonly msg: JsonObject }
  | { readonly dir: "fault"; readonly id?: number; readonly end?: true; readonly fault: JsonObject };

/** A JSON object as a cassette holds it. */
export interface JsonObject {
  readonly [key: string]: unknown;
}

/** A parsed cassette. */
export interface Cassette {
  readonly header: CassetteHeader;
  readonly events: readonly CassetteEvent[];
}

/** A cassette that cannot be read; the message names the source and the line. */
export class CassetteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CassetteError";
  }
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** JSON with every object's keys sorted, so equal values always print the same bytes. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, 0));
}

function sortKeys(value: unknown, depth: number): unknown {
  if (depth > 256) throw new CassetteError("a recorded message is nested more than 256 levels deep");
  if (Array.isArray(value)) return value.map((v) => sortKeys(v, depth + 1));
  if (!isObject(value)) return value;
  // A null-prototype map: a "__proto__" key stays data.
  const out: { [key: string]: unknown } = Object.create(null);
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key], depth + 1);
  return out;
}

/** Prints a cassette: the header line, then one line per event, each ending with a newline. */
export function printCassette(cassette: Cassette): string {
  const lines = [stableJson(cassette.header)];
  for (const event of cassette.events) {
    // "dir" < "msg": the envelope is sorted by hand so the message keeps its wire order.
    lines.push(event.dir === "fault" ? stableJson(event) : `{"dir":${JSON.stringify(event.dir)},"msg":${JSON.stringify(event.msg)}}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Parses cassette text; `source` (a file name) is named in every error with the line number. */
export function parseCassette(text: string, source = "cassette"): Cassette {
  const lines = text.split("\n");
  const values: unknown[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? "";
    if (line === "") continue;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      throw new CassetteError(`${source}:${i + 1}: not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (!isObject(values[values.length - 1])) throw new CassetteError(`${source}:${i + 1}: a cassette line must be a JSON object`);
  }
  const [header, ...rest] = values as JsonObject[];
  if (header === undefined) throw new CassetteError(`${source}: empty, expected a header line`);
  if (header.cassette !== CASSETTE_FORMAT) {
    throw new CassetteError(
      `${source}:1: cassette format ${JSON.stringify(header.cassette)} is not supported (this kit reads ${CASSETTE_FORMAT})`,
    );
  }
  if (typeof header.server !== "string") throw new CassetteError(`${source}:1: the header has no "server" name`);
  const events = rest.map((event, i) => checkEvent(event, `${source}: event ${i + 1}`));
  return { header: header as unknown as CassetteHeader, events };
}

function checkEvent(event: JsonObject, where: string): CassetteEvent {
  if (event.dir === "send" || event.dir === "recv") {
    if (!isObject(event.msg)) throw new CassetteError(`${where}: "${event.dir}" needs a "msg" object`);
    return event as unknown as CassetteEvent;
  }
  if (event.dir === "fault") {
    if (!isObject(event.fault)) throw new CassetteError(`${where}: "fault" needs a "fault" object`);
    return event as unknown as CassetteEvent;
  }
  throw new CassetteError(`${where}: "dir" must be "send", "recv" or "fault", not ${JSON.stringify(event.dir)}`);
}
