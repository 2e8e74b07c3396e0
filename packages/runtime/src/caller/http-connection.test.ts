import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { waitForGetStream } from "./http-connection.js";

/** A standalone GET that the server holds without answering headers, or answers when told. */
function heldGet() {
  let answer = () => {};
  const opened = new Promise<void>((resolve) => {
    answer = resolve;
  });
  return { streamable: { openNotificationStream: () => opened }, answer };
}

/** Settles `promise` into a flag that a test reads after advancing the fake clock. */
function track(promise: Promise<void>) {
  const state = { done: false };
  void promise.then(() => {
    state.done = true;
  });
  return state;
}

describe("waitForGetStream: the connect's wait for the standalone GET", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("never outlasts the connect budget the user set", async () => {
    const { streamable } = heldGet();
    const waited = track(waitForGetStream(streamable, { remaining: () => 50 }, new AbortController().signal));
    await vi.advanceTimersByTimeAsync(49);
    expect(waited.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(waited.done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("is capped at one second when the budget is longer", async () => {
    const { streamable } = heldGet();
    const waited = track(waitForGetStream(streamable, { remaining: () => 30_000 }, new AbortController().signal));
    await vi.advanceTimersByTimeAsync(999);
    expect(waited.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(waited.done).toBe(true);
  });

  it("ends when the connect is aborted, without waiting for the timer", async () => {
    const { streamable } = heldGet();
    const connect = new AbortController();
    const waited = track(waitForGetStream(streamable, { remaining: () => 30_000 }, connect.signal));
    await vi.advanceTimersByTimeAsync(10);
    expect(waited.done).toBe(false);
    connect.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(waited.done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("ends as soon as the server answers the GET, and leaves no timer behind", async () => {
    const { streamable, answer } = heldGet();
    const waited = track(waitForGetStream(streamable, { remaining: () => 30_000 }, new AbortController().signal));
    await vi.advanceTimersByTimeAsync(5);
    answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(waited.done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
