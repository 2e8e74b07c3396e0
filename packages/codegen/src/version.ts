/**
 * This package's version, for `toolwright --version`. A module of its own, importing only a Node
 * built-in, so the bin can answer `--version` without loading yargs or any command.
 */
import { createRequire } from "node:module";

/** The version in this package's package.json, or "unknown" when it cannot be read. */
export function codegenVersion(): string {
  try {
    const manifest = createRequire(import.meta.url)("../package.json") as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : "unknown";
  } catch {
    return "unknown";
  }
}
