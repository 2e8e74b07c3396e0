/**
 * The cassettes that keep the code-mode demo's mocks honest: the direct run of the people task,
 * recorded from the real server-filesystem and server-memory (`record.ts`). The offline test checks
 * that the generated mocks with their handlers (mock-servers.ts) answer those requests as the real
 * servers did; test/examples/code-mode-live.test.ts checks that the real servers still do.
 *
 * Re-record after a server upgrade: `npx tsx examples/code-mode/record.ts`.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Cassette, type CassetteEvent, parseCassette } from "@toolwright/testkit";

/**
 * The filesystem root as the cassettes (and the mocks) spell it. A recording runs in a fresh temp
 * folder, so `record.ts` writes this stand-in for it, and the live check puts the live root back.
 */
export const RECORDED_ROOT = "/recorded/code-mode-root";

/** The servers the demo uses, which name the cassettes. */
export type DemoServer = "filesystem" | "memory";

/** Where the cassette of one server is committed. */
export const cassetteFile = (server: DemoServer) => fileURLToPath(new URL(`./cassettes/${server}.cassette.jsonl`, import.meta.url));

/** A copy of `value` with every `from` inside its strings replaced by `to` (the JSON structure is untouched). */
function swapIn(value: unknown, from: string, to: string): unknown {
  if (typeof value === "string") return value.split(from).join(to);
  if (Array.isArray(value)) return value.map((v) => swapIn(v, from, to));
  if (typeof value !== "object" || value === null) return value;
  const out: { [key: string]: unknown } = {};
  for (const [k, v] of Object.entries(value)) out[k] = swapIn(v, from, to);
  return out;
}

/** `cassette` with the filesystem root `from` written as `to` everywhere in its messages. */
export function swapRoot(cassette: Cassette, from: string, to: string): Cassette {
  return { header: cassette.header, events: cassette.events.map((e) => swapIn(e, from, to) as CassetteEvent) };
}

/** The committed cassette of `server`, with the root spelled `root` (default: as recorded). */
export function readCassette(server: DemoServer, root = RECORDED_ROOT): Cassette {
  const file = cassetteFile(server);
  return swapRoot(parseCassette(readFileSync(file, "utf8"), file), RECORDED_ROOT, root);
}
