/**
 * The hand-written part of the generated echo server: its two handlers, served by the generated
 * `serveBenchEchoServer` over stdio (default) or Streamable HTTP (`--http`; prints `LISTEN <port>`).
 * Bundled by bench/sections/server.ts against the generated code in bench/.cache/scaffold/gen.
 */
import { parseServeArgs } from "@toolwright/runtime/server";
import { serveBenchEchoServer } from "../.cache/scaffold/gen/servers/bench-echo/index.js";

const options = parseServeArgs(process.argv.slice(2).filter((arg) => !arg.startsWith("--bench-run=")));
const handle = await serveBenchEchoServer(
  {
    echo: ({ text }) => text,
    // The same answer as bench/servers/order-text.mjs.
    order: (o) => `${o.customer.name}: ${o.items.length} items by ${o.shipping.method}`,
  },
  options.transport === "http" ? { ...options, host: "127.0.0.1", port: 0 } : options,
);
if (handle.url) process.stdout.write(`LISTEN ${new URL(handle.url).port}\n`);
// The bench ends a server by closing its stdin, over HTTP too.
process.stdin.on("end", () => process.exit(0));
if (handle.url) process.stdin.resume();
