/**
 * The principal pseudonym for telemetry: an HMAC-SHA256 of the id, truncated, computed with Web
 * Crypto and checked here against node:crypto's HMAC; the application's function is used only when
 * it returns a safe value that is not the id; nothing at all without the option.
 */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createPrincipalHasher } from "./principal-hash.js";

const KEY = "telemetry-key-0123456789abcdef";

describe("createPrincipalHasher", () => {
  it("a key: the first 16 hex digits of HMAC-SHA256(key, id), stable, distinct per principal", async () => {
    const hash = createPrincipalHasher(KEY);
    const a = await hash?.({ id: "alice@example.com", label: "Alice" });
    expect(a).toBe(createHmac("sha256", KEY).update("alice@example.com").digest("hex").slice(0, 16));
    expect(await hash?.({ id: "alice@example.com" })).toBe(a); // the label never counts
    const b = await hash?.({ id: "bob@example.com" });
    expect(b).toMatch(/^[0-9a-f]{16}$/);
    expect(b).not.toBe(a);
    // Another key, another pseudonym: a leaked trace store without the key does not link to other systems.
    expect(await createPrincipalHasher(new TextEncoder().encode(`${KEY}-2`))?.({ id: "alice@example.com" })).not.toBe(a);
  });

  it("no principal, a malformed principal, no option: nothing", async () => {
    const hash = createPrincipalHasher(KEY);
    expect(await hash?.(undefined)).toBeUndefined();
    expect(await hash?.({ id: "" })).toBeUndefined();
    expect(createPrincipalHasher(undefined)).toBeUndefined();
  });

  it("a key shorter than 16 bytes is refused without echoing it", () => {
    expect(() => createPrincipalHasher("short-key")).toThrow(/at least 16 bytes/);
    expect(() => createPrincipalHasher("short-key")).not.toThrow(/short-key/);
  });

  it("a function: its value, unless it is the id itself, unsafe, or it throws", async () => {
    const own = createPrincipalHasher((p) => `u-${p.id.length}`);
    expect(await own?.({ id: "alice@example.com" })).toBe("u-17");
    expect(await createPrincipalHasher((p) => p.id)?.({ id: "alice" })).toBeUndefined();
    expect(await createPrincipalHasher(() => "has space\nand newline")?.({ id: "alice" })).toBeUndefined();
    expect(
      await createPrincipalHasher(() => {
        throw new Error("boom");
      })?.({ id: "alice" }),
    ).toBeUndefined();
  });
});
