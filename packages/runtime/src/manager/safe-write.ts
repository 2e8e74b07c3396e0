/**
 * The one way Toolwright writes a file (the CLI's design, lock, report, generated code and cache,
 * the manager's mcp.json and approval store): never through a symlink that leads out of the
 * folder the write belongs to. Every path component below that folder is checked with `lstat`
 * (a link must resolve inside the folder; a dangling one is refused), missing folders are created
 * one at a time, and the text goes to a fresh temp file (`O_CREAT|O_EXCL|O_NOFOLLOW`) in the
 * target's own folder that is then renamed over the target. A rename replaces a link rather than
 * following it, so a link put in place of the target after the check is replaced, not written
 * through. Node has no `openat`/`renameat`, so a folder swapped for a link between the check and
 * the write cannot be prevented outright: the folder chain is checked again after the temp file is
 * written and after the rename, and a write that landed elsewhere is removed and refused.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** Options for `writeFileSafe` and `checkWritePath`. */
export interface SafeWriteOptions {
  /**
   * The folder no write may leave (the project, the output folder). Components of the path below
   * it are checked; the folder itself and its parents are the caller's choice and are trusted. A
   * path outside it is checked against its own folder instead. Default: the file's own folder.
   */
  readonly within?: string;
  /** File mode of a newly written file (default 0o666, less the umask). */
  readonly mode?: number;
  /**
   * Test seam: called after the checks, right before the temp file is opened, with the real path
   * about to be written, so a test can put a link in the way in exactly that window.
   */
  readonly afterCheck?: (target: string) => void;
}

/** A write refused because a path component is a link that leaves the folder, dangles, or is in the way. */
export class UnsafeWriteError extends Error {
  override readonly name = "UnsafeWriteError";
  /** The file that was not written, as the caller named it. */
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`refusing to write ${path}: ${reason}`);
    this.path = path;
  }
}

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Where a link points and where it finally leads; `undefined` when it dangles (or loops). */
function followLink(link: string): string | undefined {
  try {
    return realpathSync(link);
  } catch {
    return undefined;
  }
}

function linkText(link: string): string {
  try {
    return readlinkSync(link);
  } catch {
    return "?";
  }
}

/**
 * A file where a folder is needed, or the reverse: not a link problem, so the error Node itself
 * would give (code and path), which callers already turn into words.
 */
function inTheWay(code: "ENOTDIR" | "EISDIR", path: string, at: string): NodeJS.ErrnoException {
  const what = code === "ENOTDIR" ? "not a directory" : "illegal operation on a directory";
  const error: NodeJS.ErrnoException = new Error(`${code}: ${what}, ${at} (writing ${path})`);
  error.code = code;
  error.path = code === "ENOTDIR" ? dirname(resolve(path)) : resolve(path);
  error.syscall = code === "ENOTDIR" ? "mkdir" : "open";
  return error;
}

/** The checked folder and the path of the file relative to it. */
function scope(path: string, within: string | undefined): { root: string; parts: string[] } {
  const full = resolve(path);
  let root = resolve(within ?? dirname(full));
  if (!isInside(root, full) || root === full) root = dirname(full);
  const parts = relative(root, full).split(sep);
  if (parts.some((p) => p === "" || p === "." || p === "..")) throw new UnsafeWriteError(path, "not a file path");
  return { root, parts };
}

/**
 * Walks `parts` from `realRoot`, following only links that stay inside it; with `create`, makes
 * missing folders. Returns the real path of the file to write (a link to a file inside the folder
 * is written through, so the link stays), or the path where checking stopped at a missing folder.
 */
function walk(path: string, root: string, realRoot: string, parts: readonly string[], create: boolean): string {
  let current = realRoot;
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1;
    const next = join(current, parts[i] as string);
    // The component as the caller spelled it (not its resolved form); the file itself is "it".
    const shown = last ? "it" : join(root, ...parts.slice(0, i + 1));
    const stat = lstatOrUndefined(next);
    if (stat === undefined) {
      if (last) return next;
      if (!create) return join(next, ...parts.slice(i + 1));
      // Non-recursive: mkdir never follows a link that appears at `next` meanwhile (it fails with EEXIST).
      mkdirSync(next);
      current = next;
      continue;
    }
    let real = next;
    if (stat.isSymbolicLink()) {
      const target = followLink(next);
      if (target === undefined)
        throw new UnsafeWriteError(path, `${shown} is a dangling symlink (to ${linkText(next)}, which does not exist)`);
      if (!isInside(realRoot, target)) throw new UnsafeWriteError(path, `${shown} is a symlink to ${target}, outside ${root}`);
      real = target;
    }
    const kind = real === next ? stat : lstatSync(real);
    if (last) {
      if (kind.isDirectory()) throw inTheWay("EISDIR", path, next);
      if (!kind.isFile()) throw new UnsafeWriteError(path, `${shown} is not a regular file`);
      return real;
    }
    if (!kind.isDirectory()) throw inTheWay("ENOTDIR", path, next);
    current = real;
  }
  return current;
}

function realRootOf(path: string, root: string, create: boolean): string | undefined {
  const stat = lstatOrUndefined(root);
  if (stat === undefined) {
    if (!create) return undefined;
    // The folder itself and its parents are the caller's choice (see `within`).
    mkdirSync(root, { recursive: true });
  } else if (stat.isSymbolicLink() && followLink(root) === undefined) {
    throw new UnsafeWriteError(path, `${root} is a dangling symlink (to ${linkText(root)}, which does not exist)`);
  }
  return realpathSync(root);
}

/**
 * Throws `UnsafeWriteError` when writing `path` would go through a link out of its folder (see
 * `SafeWriteOptions.within`), through a dangling link, or onto a folder. Creates nothing.
 */
export function checkWritePath(path: string, options: Pick<SafeWriteOptions, "within"> = {}): void {
  const { root, parts } = scope(path, options.within);
  const realRoot = realRootOf(path, root, false);
  if (realRoot !== undefined) walk(path, root, realRoot, parts, false);
}

/**
 * Writes `data` to `path` atomically without following a link out of its folder (see the module
 * comment). Returns the real path written. Throws `UnsafeWriteError` naming the path and the link.
 */
export function writeFileSafe(path: string, data: string | Uint8Array, options: SafeWriteOptions = {}): string {
  const { root, parts } = scope(path, options.within);
  const realRoot = realRootOf(path, root, true) as string;
  const target = walk(path, root, realRoot, parts, true);
  const folder = dirname(target);
  options.afterCheck?.(target);
  const temp = join(folder, `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  const moved = () => new UnsafeWriteError(path, `a symlink appeared in ${folder} while writing`);
  let fd: number;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, options.mode ?? 0o666);
  } catch (error) {
    // `folder` is a real path: if its realpath now differs, a component was swapped for a link.
    throw followLink(folder) === folder ? error : moved();
  }
  let renamed = false;
  try {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    const written = fstatSync(fd);
    const landed = (file: string) => {
      const stat = lstatOrUndefined(file);
      return followLink(folder) === folder && stat !== undefined && stat.ino === written.ino && stat.dev === written.dev;
    };
    if (!landed(temp)) throw moved();
    renameSync(temp, target);
    renamed = true;
    if (!landed(target)) {
      rmSync(target, { force: true });
      throw moved();
    }
    return target;
  } catch (error) {
    if (!renamed) rmSync(temp, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
}
