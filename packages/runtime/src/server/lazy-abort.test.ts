import { describe, expect, it } from "vitest";
import { LazyAbortController } from "./lazy-abort.js";

describe("LazyAbortController", () => {
  it("replays an abort that came before the signal was read, reason included", () => {
    const c = new LazyAbortController();
    c.abort("gone");
    expect(c.aborted).toBe(true);
    expect(c.signal.aborted).toBe(true);
    expect(c.signal.reason).toBe("gone");
  });

  it("aborts a signal already handed out, and fires its listeners", () => {
    const c = new LazyAbortController();
    const signal = c.signal;
    let fired = 0;
    signal.addEventListener("abort", () => fired++);
    expect(c.aborted).toBe(false);
    c.abort(new Error("cancelled by client"));
    expect(signal.aborted).toBe(true);
    expect(fired).toBe(1);
    expect(c.aborted).toBe(true);
  });

  it("keeps the first reason, like AbortController, and an unread one stays unaborted", () => {
    const c = new LazyAbortController();
    c.abort("first");
    c.abort("second");
    expect(c.signal.reason).toBe("first");
    const quiet = new LazyAbortController();
    expect(quiet.aborted).toBe(false);
    expect(quiet.signal.aborted).toBe(false);
    const plain = new LazyAbortController();
    plain.abort();
    expect((plain.signal.reason as Error).name).toBe("AbortError");
  });
});
