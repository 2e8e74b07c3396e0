/**
 * The benchmark's echo server declared with the DSL: the same one tool the hand-written and SDK
 * echo servers serve. `bench/sections/server.ts` runs `toolwright gen` on it and serves the scaffold.
 */
import { design, mcpServer, object, string } from "@toolwright/dsl";

/** One `echo` tool with a `text` argument, like bench/servers/raw-echo-stdio.mjs. */
export const benchEcho = mcpServer("bench-echo", { version: "1.0.0" }, (t) => {
  t.tool("echo", { description: "Returns its text argument.", input: object({ text: string() }) });
});

export default design({ servers: [benchEcho] });
