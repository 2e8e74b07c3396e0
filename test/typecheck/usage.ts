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
  return text.length + (result?.humidity ?? 0) + id.length + spec.name.length;
}
