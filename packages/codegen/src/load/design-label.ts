/**
 * How a design file is named in headers, messages and summaries.
 */
import { relative, sep } from "node:path";

/** The label used in headers and messages: the path relative to `cwd`, with `/` separators. */
export function designLabel(path: string, cwd: string): string {
  return relative(cwd, path).split(sep).join("/");
}
