/**
 * Manager failure messages say the server's name once (#18 "also seen"): a command that does not
 * exist and a server that exits during initialize used to read `ghost: ghost: cannot start …` and
 * `broken: broken: server process exited`. Statuses carry the reason without the name (the status
 * has it), and every failure built from them adds it exactly once.
 */
import { createMcpManager } from "@toolwright/runtime/manager";
import { expect, it } from "vitest";
import { guardLeaks } from "../support/leak-guard.js";

guardLeaks();

it("ghost and broken servers: the name once in failures, not at all in status errors", async () => {
  const manager = createMcpManager(
    {
      mcpServers: {
        ghost: { transport: "stdio", command: "/nonexistent/toolwright-ghost", args: [], env: {} },
        broken: { transport: "stdio", command: process.execPath, args: ["-e", "process.exit(3)"], env: {} },
      },
    },
    { client: { restartDelayMs: 1 } },
  );
  try {
    const statuses = await manager.start();
    const byName = Object.fromEntries(statuses.map((s) => [s.name, s]));
    expect(byName.ghost?.error).toMatch(/^cannot start \/nonexistent\/toolwright-ghost/);
    expect(byName.broken?.error).toMatch(/^server process exited/);
    for (const name of ["ghost", "broken"]) {
      // Past the backoff the call reconnects and fails again; both paths build the message.
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = await manager.callTool(`${name}.anything`, {});
        expect(result.ok).toBe(false);
        const message = result.ok ? "" : result.failure.message;
        expect(message.startsWith(`${name}: `)).toBe(true);
        expect(message.match(new RegExp(`(^|[\\s(])${name}: `, "g"))).toHaveLength(1);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  } finally {
    await manager.stop();
  }
});
