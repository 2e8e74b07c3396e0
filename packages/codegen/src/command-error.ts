/**
 * The one line the CLI prints for a failed command: design errors, file errors (mcp.json, a design
 * `init`/`add` would overwrite), mcp.json entry errors from the manager's parser, and the rest.
 */
import { isDesignError } from "./errors.js";

/** `design error: ...` for a bad design, `error: ...` for everything else. */
export function commandErrorText(error: unknown): string {
  if (isDesignError(error)) return `design error: ${error.message}`;
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}
