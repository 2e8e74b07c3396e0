/**
 * How a program that produced no value is reported: always a `ToolFailure` (the shape every other
 * Toolwright failure has), so a planner treats a failed program like a failed call. Messages pass
 * through the runtime's secret redaction, as every failure does.
 */
import type { ToolFailure } from "@toolwright/runtime";
import { redactText } from "@toolwright/runtime/caller";
import type { ExecutionError } from "./executor.js";

/** The `tool` of failures that belong to the program rather than to one of its calls. */
export const PROGRAM_TOOL = "code_mode";

const MAX_MESSAGE = 2000;

function bounded(text: string): string {
  const clean = redactText(text);
  return clean.length > MAX_MESSAGE ? `${clean.slice(0, MAX_MESSAGE)}…` : clean;
}

/** The first `program.js:line:col` of a stack, as `line L`, for the model to find its mistake. */
function where(stack: string | undefined): string {
  const match = stack ? /program\.js:(\d+)(?::(\d+))?/.exec(stack) : null;
  return match ? ` (line ${match[1]}${match[2] ? `, column ${match[2]}` : ""})` : "";
}

/** A failure of the program itself. `source` is what the model sent: the evidence for `correct_call`. */
export function programFailure(error: ExecutionError, source: string): ToolFailure {
  const base = { tool: PROGRAM_TOOL, server: "", source: "local" as const };
  switch (error.type) {
    case "syntax":
      return {
        ...base,
        kind: "invalid_call",
        message: bounded(`the program does not parse: ${error.message}`),
        recovery: { action: "correct_call", priorInput: source },
        retryable: false,
      };
    case "thrown":
      return {
        ...base,
        kind: "invalid_call",
        message: bounded(`the program threw ${error.name ? `${error.name}: ` : ""}${error.message}${where(error.stack)}`),
        recovery: { action: "correct_call", priorInput: source },
        retryable: false,
      };
    case "result":
    case "deadlock":
    case "unhandled":
      return {
        ...base,
        kind: "invalid_call",
        message: bounded(error.message),
        recovery: { action: "correct_call", priorInput: source },
        retryable: false,
      };
    case "limit":
      if (error.limit === "wallTimeMs")
        return {
          ...base,
          kind: "timeout",
          reason: "time_budget",
          message: bounded(error.message),
          recovery: { action: "replan" },
          retryable: false,
        };
      if (error.limit === "maxCalls")
        return {
          ...base,
          kind: "invalid_call",
          reason: "max_tool_calls",
          message: bounded(error.message),
          recovery: { action: "replan" },
          retryable: false,
        };
      return {
        ...base,
        kind: "invalid_call",
        message: bounded(`${error.message}; write a program that does less at once`),
        recovery: { action: "replan" },
        retryable: false,
      };
    case "stopped":
      return { ...base, kind: "invalid_call", message: bounded(error.message), recovery: { action: "replan" }, retryable: false };
    case "aborted":
      return { ...base, kind: "canceled", message: bounded(error.message), recovery: { action: "finish" }, retryable: false };
    case "internal":
      return { ...base, kind: "internal", message: bounded(error.message), recovery: { action: "replan" }, retryable: false };
  }
}
