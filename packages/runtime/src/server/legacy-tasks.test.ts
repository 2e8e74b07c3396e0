import { describe, expect, it } from "vitest";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import { createLegacyTaskStore } from "./legacy-tasks.js";
import type { SessionState } from "./session.js";

/** A store whose unexpected task errors land in `reported`. */
function storeWithReports() {
  const reported: unknown[] = [];
  // The tasks never ask the client anything, so the session state is never read.
  const store = createLegacyTaskStore(
    {} as SessionState,
    () => ({}),
    (error) => reported.push(error),
  );
  return { store, reported };
}

describe("legacy task store", () => {
  it("an unexpected throw in a task goes to the report, and tasks/result and tasks/get answer only Internal error", async () => {
    const { store, reported } = storeWithReports();
    const started = store.start(undefined, async () => {
      throw new Error("connect failed: password=hunter2");
    });
    const taskId = started.task.taskId as string;
    const answer = await store.result({ taskId }, 1).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(answer).toBeInstanceOf(RpcHandlerError);
    expect(answer).toMatchObject({ code: -32603, message: "Internal error" });
    expect(JSON.stringify(store.get({ taskId }))).not.toContain("hunter2");
    expect(store.get({ taskId })).toMatchObject({ status: "failed" });
    expect(reported.map((e) => (e as Error).message)).toEqual(["connect failed: password=hunter2"]);
  });

  it("a deliberate RpcHandlerError reaches the client as it is, and is not reported", async () => {
    const { store, reported } = storeWithReports();
    const started = store.start(undefined, async () => {
      throw new RpcHandlerError(-32602, "bad depth");
    });
    const answer = await store.result({ taskId: started.task.taskId }, 1).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(answer).toMatchObject({ code: -32602, message: "bad depth" });
    expect(reported).toEqual([]);
  });
});
