/** Which clients the manager trusts to have checked a result's shape: the built-in callers only. */
import { describe, expect, it } from "vitest";
import { checksResultShape, createServerClient, type ServerClient } from "./client-factory.js";

describe("checksResultShape", () => {
  it("is true for the stdio and default HTTP callers, false for a custom factory's client", async () => {
    const stdio = createServerClient("s", { transport: "stdio", command: process.execPath, args: [], env: {} });
    const http = createServerClient("h", { transport: "http", url: "http://127.0.0.1:9/mcp", headers: {} });
    const custom = createServerClient(
      "c",
      { transport: "http", url: "http://127.0.0.1:9/mcp", headers: {} },
      { createHttpClient: (o) => ({ server: o.name, close: async () => {} }) as unknown as ServerClient },
    );
    try {
      expect(checksResultShape(stdio)).toBe(true);
      expect(checksResultShape(http)).toBe(true);
      expect(checksResultShape(custom)).toBe(false);
    } finally {
      await Promise.all([stdio.close(), http.close(), custom.close()]);
    }
  });
});
