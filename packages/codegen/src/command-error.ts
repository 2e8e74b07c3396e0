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

/** Where a command prints. */
interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * Runs a command that either succeeds with a summary (exit 0) or fails on bad input (exit 2), and
 * prints the outcome: one summary line, or one error line on stderr, or one JSON object with `json`.
 */
export async function reportCommand<S extends object>(
  command: string,
  json: boolean,
  io: CommandIo,
  run: () => Promise<S>,
  line: (summary: S) => string,
): Promise<number> {
  try {
    const summary = await run();
    io.stdout(json ? JSON.stringify({ ok: true, command, exitCode: 0, ...summary }) : line(summary));
    return 0;
  } catch (error) {
    const text = commandErrorText(error);
    if (json) io.stdout(JSON.stringify({ ok: false, command, exitCode: 2, error: text }));
    else io.stderr(text);
    return 2;
  }
}
