/**
 * The one line the CLI prints for a failed command: design errors, file errors (mcp.json, a design
 * `init`/`add` would overwrite), mcp.json entry errors from the manager's parser, and the rest.
 */
import { relative } from "node:path";
import { isDesignError } from "./errors.js";

/** Why a file-system call failed, in words, for the errors an output folder commonly meets. */
const FS_REASONS: { readonly [code: string]: string } = {
  ENOTDIR: "a file is in the way where a folder is needed",
  EEXIST: "a file is in the way where a folder is needed",
  EISDIR: "a folder is in the way where a file is needed",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
};

/**
 * `design error: ...` for a bad design, `error: ...` for everything else. With `out`, a file-system
 * error while writing names the output folder, the path and the reason in words.
 */
export function commandErrorText(error: unknown, out?: { readonly dir: string; readonly cwd: string }): string {
  if (isDesignError(error)) return `design error: ${error.message}`;
  const fsError = error as { code?: unknown; path?: unknown };
  if (out !== undefined && typeof fsError.code === "string" && typeof fsError.path === "string" && fsError.code in FS_REASONS) {
    const where = relative(out.cwd, fsError.path) || ".";
    return `error: cannot write --out ${out.dir}: ${where}: ${FS_REASONS[fsError.code]} (${fsError.code})`;
  }
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
