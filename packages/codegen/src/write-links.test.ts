/**
 * The one write helper every CLI write goes through (`writeFileAtomic`, the runtime's
 * `writeFileSafe`) never follows a link out of its folder, over generated layouts: each component
 * of the written path is absent, a folder, a file in the way, or a link (inside, outside, dangling
 * inside or outside). Whatever the layout, nothing outside the project is created or modified;
 * the write succeeds exactly when no component leaves the project, and then lands inside it.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { UnsafeWriteError, writeFileSafe } from "@toolwright/runtime/manager";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { writeFileAtomic } from "./write.js";

const base = mkdtempSync(join(tmpdir(), "toolwright-links-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Every entry under `dir`: kind, link target or file content. Links are listed, never followed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      const rel = relative(dir, full);
      const st = lstatSync(full);
      if (st.isSymbolicLink()) out[rel] = `link:${readlinkSync(full)}`;
      else if (st.isDirectory()) {
        out[rel] = "dir";
        walk(full);
      } else out[rel] = `file:${readFileSync(full, "utf8")}:${st.mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

type Middle = "absent" | "dir" | "file" | "link-inside" | "link-outside" | "dangling-inside" | "dangling-outside";
type Last = "absent" | "file" | "dir" | "link-inside" | "link-outside" | "dangling-inside" | "dangling-outside";
const middle = fc.constantFrom<Middle>("absent", "dir", "file", "link-inside", "link-outside", "dangling-inside", "dangling-outside");
const last = fc.constantFrom<Last>("absent", "file", "dir", "link-inside", "link-outside", "dangling-inside", "dangling-outside");

let n = 0;
/** A fresh sandbox: `project/` with a spare folder and file, and `outside/` with a folder and a victim file. */
function sandbox() {
  const root = join(base, `s${n++}`);
  const project = join(root, "project");
  const outside = join(root, "outside");
  mkdirSync(join(project, "spare-dir"), { recursive: true });
  writeFileSync(join(project, "spare-file"), "spare");
  mkdirSync(join(outside, "dir"), { recursive: true });
  writeFileSync(join(outside, "victim"), "victim");
  return { root, project, outside };
}

/** Builds the layout; returns the path to write and whether a safe write must succeed. */
function build(
  s: ReturnType<typeof sandbox>,
  middles: readonly Middle[],
  end: Last,
  absoluteLinks: boolean,
): { path: string; ok: boolean } {
  const link = (target: string, at: string) => symlinkSync(absoluteLinks ? target : relative(join(at, ".."), target) || ".", at);
  let dir = s.project;
  let outcome: Outcome = "ok";
  let built = true; // false once a component is absent: nothing exists below it
  middles.forEach((kind, i) => {
    const at = join(dir, `m${i}`);
    if (built) {
      if (kind === "absent") built = false;
      else if (kind === "dir") mkdirSync(at);
      else if (kind === "file") writeFileSync(at, "in the way");
      else if (kind === "link-inside") link(join(s.project, "spare-dir"), at);
      else if (kind === "link-outside") link(join(s.outside, "dir"), at);
      else if (kind === "dangling-inside") link(join(s.project, "missing"), at);
      else link(join(s.outside, "missing"), at);
      if (kind !== "absent" && kind !== "dir" && kind !== "link-inside") {
        outcome = kind === "file" ? "ENOTDIR" : "link";
        built = false; // nothing is built below a file, a dangling link or a link outside
      }
    }
    // A link inside leads to spare-dir: later components are built there.
    dir = built && kind === "link-inside" ? join(s.project, "spare-dir") : at;
  });
  const path = join(dir, "out.txt");
  if (built) {
    if (end === "file") writeFileSync(path, "old");
    else if (end === "dir") mkdirSync(path);
    else if (end === "link-inside") link(join(s.project, "spare-file"), path);
    else if (end === "link-outside") link(join(s.outside, "victim"), path);
    else if (end === "dangling-inside") link(join(s.project, "gone.txt"), path);
    else if (end === "dangling-outside") link(join(s.outside, "gone.txt"), path);
    if (end === "dir") outcome = "EISDIR";
    else if (end !== "absent" && end !== "file" && end !== "link-inside") outcome = "link";
  }
  // The path as the user names it: through the link names, not the resolved folders.
  return { path: join(s.project, ...middles.map((_, i) => `m${i}`), "out.txt"), outcome };
}

describe("no write follows a link out of its folder (generated layouts)", () => {
  it("writes exactly when every component stays inside the project, and never touches outside", () => {
    fc.assert(
      fc.property(fc.array(middle, { maxLength: 3 }), last, fc.boolean(), (middles, end, absoluteLinks) => {
        const s = sandbox();
        const { path, outcome } = build(s, middles, end, absoluteLinks);
        const before = snapshot(s.outside);
        let error: unknown;
        try {
          writeFileAtomic(path, "new", { within: s.project });
        } catch (e) {
          error = e;
        }
        expect(snapshot(s.outside)).toEqual(before);
        // Nothing appeared next to the sandbox either.
        expect(readdirSync(s.root).sort()).toEqual(["outside", "project"]);
        if (outcome === "ok") {
          expect(error).toBeUndefined();
          expect(readFileSync(path, "utf8")).toBe("new");
          expect(relative(realpathSync(s.project), realpathSync(path)).startsWith("..")).toBe(false);
        } else if (outcome === "link") {
          expect(error).toBeInstanceOf(UnsafeWriteError);
          expect((error as Error).message).toContain(`refusing to write ${path}: `);
          expect((error as Error).message).toMatch(/symlink/);
        } else {
          expect((error as NodeJS.ErrnoException).code).toBe(outcome);
          expect((error as Error).message).toContain(path);
        }
        rmSync(s.root, { recursive: true, force: true });
      }),
      { numRuns: 300 },
    );
  });

  it("a link put in place of a folder between the check and the write is refused, and nothing stays outside", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.nat(), (depth, pick) => {
        const s = sandbox();
        const parts = Array.from({ length: depth }, (_, i) => `d${i}`);
        const path = join(s.project, ...parts, "out.txt");
        // The folder the link leads to has the same layout, so a write through it would succeed there.
        mkdirSync(join(s.outside, "dir", ...parts.slice(1)), { recursive: true });
        const before = snapshot(s.outside);
        const swapped = join(s.project, ...parts.slice(0, (pick % depth) + 1));
        expect(() =>
          writeFileSafe(path, "new", {
            within: s.project,
            afterCheck: () => {
              renameSync(swapped, `${swapped}.moved`);
              symlinkSync(join(s.outside, "dir"), swapped);
            },
          }),
        ).toThrow(/symlink appeared/);
        expect(snapshot(s.outside)).toEqual(before);
        rmSync(s.root, { recursive: true, force: true });
      }),
      { numRuns: 30 },
    );
  });

  it("a link put in place of the file itself between the check and the write is replaced, not written through", () => {
    const s = sandbox();
    const path = join(s.project, "out.txt");
    const before = snapshot(s.outside);
    writeFileSafe(path, "new", { within: s.project, afterCheck: () => symlinkSync(join(s.outside, "victim"), path) });
    expect(snapshot(s.outside)).toEqual(before);
    expect(lstatSync(path).isFile()).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("new");
  });
});
