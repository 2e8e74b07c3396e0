/**
 * Type tests for generated code, checked by tsc with the strictest options (see typecheck.test.ts).
 * Lines marked @ts-expect-error must stay errors: they prove the generated types are not `any`.
 */
import { createInMemoryCaller, createRuntime } from "@toolwright/runtime";
import {
  createEverythingClient,
  type EchoPayload,
  everythingRequests,
  everythingSpecMap,
  type GetStructuredContentResult,
  registerEverythingToolset,
} from "../../examples/everything/src/gen/everything/index.js";
import { createNotesClient, type NoteParams } from "../golden/lock-surface/expected/notes/index.js";
import type { CalcServerHandlers, ExplainPromptArgs, HistoryParams } from "../golden/mcp-server-scaffold/expected/servers/calc/index.js";

const caller = createInMemoryCaller("everything", {});
const client = createEverythingClient(caller);

export async function usage(): Promise<number> {
  const payload: EchoPayload = { message: "hi" };
  const echo = await client.echo(payload);
  const text: string = echo.ok ? echo.value : echo.failure.message;
  const weather = await client.getStructuredContent({ location: "Chicago" });
  const result: GetStructuredContentResult | undefined = weather.ok ? weather.value : undefined;
  // @ts-expect-error: "Paris" is not one of the declared cities.
  await client.getStructuredContent({ location: "Paris" });
  // @ts-expect-error: b is required.
  await client.getSum({ a: 1 });
  // @ts-expect-error: a must be a number.
  await client.getSum({ a: "1", b: 2 });
  const runtime = createRuntime();
  registerEverythingToolset(runtime, caller);
  const request = everythingRequests.getSum({ a: 1, b: 2 });
  const id: "everything.get-sum" = request.tool;
  const spec = everythingSpecMap["get-sum"];
  return text.length + (result?.humidity ?? 0) + id.length + spec.name.length + (await surfaceUsage());
}

/** Pulled prompts and templates (golden lock-surface) and a server's handler stubs (golden mcp-server-scaffold). */
async function surfaceUsage(): Promise<number> {
  const notes = createNotesClient(caller);
  const summary = await notes.getSummarizePrompt({ id: "n1" });
  // @ts-expect-error: the pulled prompt's "id" argument is required.
  await notes.getSummarizePrompt({ tone: "dry" });
  const params: NoteParams = { folder: "inbox", path: "a/b.md", rev: "" };
  await notes.readNote(params);
  // @ts-expect-error: "file" is not a variable of notes://{folder}/{+path}{?rev}.
  await notes.readNote({ folder: "inbox", path: "a", rev: "", file: "x" });
  const explain: ExplainPromptArgs = { operation: "add" };
  const history: HistoryParams = { day: "d", entry: "" };
  const handlers: Pick<CalcServerHandlers, "getExplainPrompt" | "readHistory"> = {
    getExplainPrompt: (args) => ({ messages: [{ role: "user", content: { type: "text", text: args.operation } }] }),
    readHistory: (p, _ctx, uri) => `${uri} ${p.day}`,
  };
  const wrong: Pick<CalcServerHandlers, "readConstants"> = {
    // @ts-expect-error: a resource body is text, bytes or contents, not a number.
    readConstants: () => 42,
  };
  return (summary.ok ? 1 : 0) + explain.operation.length + history.day.length + Object.keys(handlers).length + Object.keys(wrong).length;
}
