import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileTokenStore } from "./file-token-store.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tw-tokens-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tokens = { accessToken: "a1", tokenType: "Bearer", refreshToken: "r1", issuer: "https://as.example" };

describe("createFileTokenStore", () => {
  it("keeps tokens and clients across instances in a 0600 file, in a folder it creates", async () => {
    const path = join(dir, "nested", "tokens.json");
    const store = createFileTokenStore(path);
    expect(await store.loadTokens("https://mcp.example/mcp")).toBeUndefined();
    await store.saveTokens("https://mcp.example/mcp", tokens);
    await store.saveClient("https://as.example", { clientId: "c1", issuer: "https://as.example", source: "dynamic" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = createFileTokenStore(path);
    expect(await again.loadTokens("https://mcp.example/mcp")).toEqual(tokens);
    expect(await again.loadClient("https://as.example")).toMatchObject({ clientId: "c1" });
    await again.saveTokens("https://mcp.example/mcp", undefined);
    expect(JSON.parse(readFileSync(path, "utf8")).tokens).toEqual({});
  });

  it("does not persist DPoP-bound tokens (their key is in memory only)", async () => {
    const path = join(dir, "t.json");
    await createFileTokenStore(path).saveTokens("r", { ...tokens, tokenType: "DPoP" });
    expect(await createFileTokenStore(path).loadTokens("r")).toBeUndefined();
  });

  it("concurrent saves all land; the last write wins per key", async () => {
    const path = join(dir, "t.json");
    const store = createFileTokenStore(path);
    await Promise.all([1, 2, 3, 4, 5].map((i) => store.saveTokens(`r${i}`, { ...tokens, accessToken: `a${i}` })));
    const reread = createFileTokenStore(path);
    for (const i of [1, 2, 3, 4, 5]) expect((await reread.loadTokens(`r${i}`))?.accessToken).toBe(`a${i}`);
  });

  it("a corrupt file is a clear error naming the file", async () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, "{not json");
    await expect(createFileTokenStore(path).loadTokens("r")).rejects.toThrow(`token store ${path} is not valid JSON`);
  });
});
