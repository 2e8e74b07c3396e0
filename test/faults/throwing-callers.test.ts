/**
 * Third-party callers (`callerFunc`) that throw, reject or return nothing: the generated client and
 * `runtime.execute` still answer with failure values (kind `internal`), with secrets redacted from
 * the message, and the run goes on.
 */
import { type Caller, createRuntime } from "@toolwright/runtime";
import { callerFunc } from "@toolwright/runtime/caller";
import { describe, expect, it } from "vitest";
import { createFilesClient } from "../golden/refs-recursive/expected/files/client.gen.js";
import { registerFilesToolset } from "../golden/refs-recursive/expected/files/register.gen.js";

const payload = { to: { street: "Main St", city: "Springfield" } };
const broken: [string, Caller][] = [
  [
    "throws synchronously",
    callerFunc("sync", () => {
      throw new Error("boom api_key=sk-thrown-secret-123");
    }),
  ],
  [
    "rejects",
    callerFunc("async", async () => {
      throw new TypeError("kaput");
    }),
  ],
  ["returns undefined", callerFunc("nothing", async () => undefined as never)],
  ["returns a non-response", callerFunc("weird", async () => ({ hello: "world" }) as never)],
];

describe("broken third-party callers", () => {
  it.each(broken)("a caller that %s: the typed client returns an internal failure", async (_what, caller) => {
    const r = await createFilesClient(caller).ship(payload);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failure).toMatchObject({ kind: "internal", tool: "files.ship", server: caller.server });
      expect(r.failure.message).not.toContain("sk-thrown-secret-123");
    }
  });

  it.each(broken)("a caller that %s: runtime.execute returns a failure and the next call still runs", async (_what, caller) => {
    const runtime = createRuntime();
    registerFilesToolset(runtime, caller);
    const first = await runtime.execute({ tool: "files.ship", arguments: payload });
    expect(first.ok).toBe(false);
    if (!first.ok) expect(first.failure.kind).toBe("internal");
    const second = await runtime.execute({ tool: "files.ship", arguments: payload });
    expect(second.ok).toBe(false);
    expect(runtime.usage().toolCalls).toBe(2);
    expect(runtime.usage().consecutiveFailures).toBe(2);
  });
});
