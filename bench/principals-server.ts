/**
 * The server of the principals section, in a process of its own so that the worker's CPU time is
 * the client's alone: the many-users load test's guarded Streamable HTTP server (bench/many-users),
 * which refuses a call made with another principal's token. Token `tok-<n>` belongs to `user-<n>`.
 * Prints its URL, then one line of counts for every line read on stdin; exits when stdin ends.
 * Usage: node --import tsx bench/principals-server.ts
 */
import { startGuardedServer } from "./many-users/guarded-server.ts";

const server = await startGuardedServer({
  name: "bench",
  issuer: "http://127.0.0.1:9",
  check: (token) => (token.startsWith("tok-") ? `user-${token.slice(4)}` : undefined),
});
process.stdout.write(`${server.url}\n`);
process.stdin.on("data", () => process.stdout.write(`${JSON.stringify(server.stats())}\n`));
process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
