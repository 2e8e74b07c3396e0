/**
 * Helpers for `hostile-stdio-server.mjs`: its path, a stdio config for it, and process checks read
 * from /proc (a zombie counts as gone: it runs nothing and only waits to be reaped).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Absolute path of the server script. */
export const HOSTILE_STDIO_SERVER = fileURLToPath(new URL("./hostile-stdio-server.mjs", import.meta.url));

/** State and process group of a pid from /proc, or undefined when it is gone. */
export function procStat(pid: number): { readonly state: string; readonly pgrp: number; readonly session: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0] ?? "?", pgrp: Number(fields[2]), session: Number(fields[3]) };
  } catch {
    return undefined;
  }
}

/** True while `pid` is a running (not zombie) process. */
export function isRunning(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== "Z" && stat.state !== "X";
}

/** Waits (bounded by `tries` × 20 ms) until `read()` gives a value. */
export async function waitFor<T>(read: () => T | undefined, tries = 250): Promise<T | undefined> {
  for (let i = 0; i < tries; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

/** Reads a pid a server wrote to `file`, once it is there. */
export function readPid(file: string): Promise<number | undefined> {
  return waitFor(() => {
    try {
      const text = readFileSync(file, "utf8").trim();
      return text === "" ? undefined : Number(text);
    } catch {
      return undefined;
    }
  });
}
