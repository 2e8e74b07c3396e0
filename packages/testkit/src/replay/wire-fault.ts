/**
 * A cassette's `fault` object back into the runtime's wire fault, so a replayed transport failure
 * goes through the runtime's one mapping (`failureFromFault`) as the live one did. The cassette
 * is a file a user may edit: every field is checked, and what does not fit is left out rather
 * than passed on (an unknown type replays as a transport failure with the recorded message).
 */

import type { WireFault } from "@toolwright/runtime/caller";
import type { JsonObject } from "../cassette/format.js";

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** The wire fault a cassette's `fault` object records. */
export function wireFaultOf(fault: JsonObject): WireFault {
  const message = text(fault.message) ?? "";
  switch (fault.type) {
    case "http": {
      const status = num(fault.status);
      if (status === undefined) break;
      return { type: "http", status, message, ...opt("retryAfterMs", num(fault.retryAfterMs)) };
    }
    case "rpc": {
      const code = num(fault.code);
      if (code === undefined) break;
      return {
        type: "rpc",
        code,
        message,
        ...(fault.data === undefined ? {} : { data: fault.data }),
        ...opt("httpStatus", num(fault.status)),
      };
    }
    case "transport": {
      const exitCode = fault.exitCode === null ? null : num(fault.exitCode);
      const signal = fault.signal === null ? null : text(fault.signal);
      return {
        type: "transport",
        code: text(fault.code) ?? "ERECORDED",
        message,
        ...opt("exitCode", exitCode),
        ...opt("signal", signal),
        ...opt("stderrTail", text(fault.stderrTail)),
      };
    }
    case "timeout":
      return { type: "timeout", message, phase: fault.phase === "connect" ? "connect" : "request" };
  }
  return { type: "transport", code: "ERECORDED", message: `recorded ${String(text(fault.type) ?? "unknown")} failure: ${message}` };
}
