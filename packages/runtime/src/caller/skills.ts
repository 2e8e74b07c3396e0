/**
 * Skills over MCP (SEP-2640) for the stdio and HTTP callers. `listSkills` pages `skills/list` and
 * `getSkill` asks `skills/get`, both only after the server declared the extension, and neither
 * reads a file: retrieval is lazy. `loadSkill` is the skill-loading path: it checks the entry, reads
 * `SKILL.md`, verifies its size, digest and frontmatter against the entry, and only then hands
 * back the skill, whose `readFile` reads listed files only, each verified before use. Any mismatch
 * is a `malformed_result` failure naming the file; nothing unverified is returned.
 */
import type { FieldIssue } from "../failure/failure.js";
import { failureFromFault } from "../failure/failure-mapping.js";
import type { Result } from "../failure/result.js";
import type { ResourceContents } from "../protocol/mcp-types.js";
import {
  contentBytes,
  declaresSkills,
  entryProblems,
  fileProblems,
  frontmatterProblems,
  SKILLS_EXTENSION,
  type SkillEntry,
  skillRoot,
} from "../protocol/skills.js";
import type { CallOptions, SurfaceRequest } from "./call-options.js";

/** Options for `loadSkill`. */
export interface LoadSkillOptions extends CallOptions {
  /** Load a skill whose `resources` is "dynamic" (no digests: only its frontmatter is checked). Default false. */
  readonly allowDynamic?: boolean;
}

/** A skill that passed verification: its entry, its `SKILL.md`, and verified reads of its other files. */
export interface LoadedSkill {
  /** The entry the skill was loaded from (held while the skill is in use). */
  readonly entry: SkillEntry;
  /** The verified `SKILL.md` text, frontmatter included. */
  readonly text: string;
  /** The `SKILL.md` body after the frontmatter. */
  readonly body: string;
  /** False for a "dynamic" skill, whose content no digest covers. */
  readonly verified: boolean;
  /**
   * Reads one file of the skill by URI or by a path relative to the skill's root (as `SKILL.md`
   * references it), verified against the held entry; a file the entry does not list is refused
   * without a read. Verified files are cached for the life of this object.
   */
  readFile(file: string, options?: CallOptions): Promise<Result<SkillFile>>;
}

/** One verified file of a loaded skill. */
export interface SkillFile {
  readonly uri: string;
  readonly bytes: Uint8Array;
  /** The file as UTF-8 text when the server sent text. */
  readonly text?: string;
  readonly mimeType?: string;
}

/** Skills on one server. */
export interface SkillsSurface {
  /** `skills/list` through every page; no file is read. */
  listSkills(options?: CallOptions): Promise<Result<readonly SkillEntry[]>>;
  /** `skills/get` for the skill whose `SKILL.md` is at `uri` (a skill a listing may have left out). */
  getSkill(uri: string, options?: CallOptions): Promise<Result<SkillEntry>>;
  /** Loads a skill (an entry, or the URI of its `SKILL.md`, confirmed with `skills/get`), verified. */
  loadSkill(skill: SkillEntry | string, options?: LoadSkillOptions): Promise<Result<LoadedSkill>>;
}

/** What the skills surface needs from its caller. */
export interface SkillsDeps {
  readonly server: string;
  readonly request: SurfaceRequest;
  readResource(uri: string, options: CallOptions): Promise<Result<readonly ResourceContents[]>>;
  /** Connects (if not yet) and answers the server's capabilities. */
  capabilities(options: CallOptions): Promise<Result<{ readonly [key: string]: unknown }>>;
}

const MAX_PAGES = 1000;

/** Creates the skills surface over a caller. */
export function createSkills(deps: SkillsDeps): SkillsSurface {
  const failure = (fault: Parameters<typeof failureFromFault>[0], tool: string) =>
    ({ ok: false, failure: failureFromFault(fault, { tool, server: deps.server }) }) as const;
  const unverified = (method: string, message: string, issues: readonly FieldIssue[]) =>
    failure({ type: "malformed", message: `${message}: ${issues.map(describe).join("; ")}`, issues }, method);

  /** The extension must be declared before skills/list or skills/get is sent. */
  async function declared(method: string, options: CallOptions): Promise<Result<void>> {
    const caps = await deps.capabilities(options);
    if (!caps.ok) return caps;
    if (declaresSkills(caps.value)) return { ok: true, value: undefined };
    return failure({ type: "rpc", code: -32601, message: `the server does not declare the ${SKILLS_EXTENSION} extension` }, method);
  }

  async function getSkill(uri: string, options: CallOptions = {}): Promise<Result<SkillEntry>> {
    const ok = await declared("skills/get", options);
    if (!ok.ok) return ok;
    const answer = await deps.request("skills/get", { uri }, options);
    if (!answer.ok) return answer;
    const skill = (answer.value as { skill?: unknown } | undefined)?.skill as SkillEntry | undefined;
    if (typeof skill !== "object" || skill === null) return unverified("skills/get", "skills/get answered no skill", []);
    return { ok: true, value: skill };
  }

  return {
    async listSkills(options = {}) {
      const ok = await declared("skills/list", options);
      if (!ok.ok) return ok;
      const skills: SkillEntry[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await deps.request("skills/list", cursor === undefined ? {} : { cursor }, options);
        if (!answer.ok) return answer;
        const result = answer.value as { skills?: unknown; nextCursor?: unknown } | undefined;
        if (!Array.isArray(result?.skills)) return unverified("skills/list", "skills/list result has no skills array", []);
        skills.push(...(result.skills as SkillEntry[]));
        const next = result.nextCursor;
        if (typeof next !== "string" || next === "" || seen.has(next)) break;
        seen.add(next);
        cursor = next;
      }
      return { ok: true, value: skills };
    },
    getSkill,
    async loadSkill(skill, options = {}) {
      let entry: SkillEntry;
      if (typeof skill === "string") {
        const got = await getSkill(skill, options);
        if (!got.ok) return got;
        entry = got.value;
      } else entry = skill;
      const problems = entryProblems(entry, options.allowDynamic === true);
      if (problems.length > 0) return unverified("skills/load", `skill entry ${String(entry?.uri)} cannot be loaded`, problems);
      const read = await deps.readResource(entry.uri, options);
      if (!read.ok) return read;
      const bytes = contentBytes(read.value, entry.uri);
      if (!bytes) return unverified("skills/load", `${entry.uri} came back empty`, [{ field: entry.uri, constraint: "missing_field" }]);
      const listed = entry.resources === "dynamic" ? undefined : entry.resources.find((r) => r.uri === entry.uri);
      if (listed) {
        const mismatch = await fileProblems(bytes, listed);
        if (mismatch.length > 0) return unverified("skills/load", `${entry.uri} does not match its entry`, mismatch);
      }
      const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
      const front = frontmatterProblems(text, entry);
      if (front.issues.length > 0) return unverified("skills/load", `${entry.uri} frontmatter differs from its entry`, front.issues);
      return { ok: true, value: loaded(entry, text, front.body) };
    },
  };

  function loaded(entry: SkillEntry, text: string, body: string): LoadedSkill {
    const cache = new Map<string, SkillFile>();
    const root = skillRoot(entry.uri);
    return {
      entry,
      text,
      body,
      verified: entry.resources !== "dynamic",
      async readFile(file, options = {}) {
        // Relative references resolve against the skill's root, like a filesystem path.
        const uri = file.includes("://") ? file : `${root}/${file.replace(/^\.?\//, "")}`;
        const hit = cache.get(uri);
        if (hit) return { ok: true, value: hit };
        const listed = entry.resources === "dynamic" ? undefined : entry.resources.find((r) => r.uri === uri);
        // While a skill is in use, only files its held entry lists may be read (an unlisted one is a change).
        if (entry.resources !== "dynamic" && !listed)
          return unverified("skills/read", `${uri} is not a file of skill ${entry.uri}`, [{ field: uri, constraint: "unknown_field" }]);
        if (entry.resources === "dynamic" && !uri.startsWith(`${root}/`))
          return unverified("skills/read", `${uri} is outside skill ${entry.uri}`, [{ field: uri, constraint: "unknown_field" }]);
        const read = await deps.readResource(uri, options);
        if (!read.ok) return read;
        const bytes = contentBytes(read.value, uri);
        if (!bytes) return unverified("skills/read", `${uri} came back empty`, [{ field: uri, constraint: "missing_field" }]);
        if (listed) {
          const mismatch = await fileProblems(bytes, listed);
          if (mismatch.length > 0) return unverified("skills/read", `${uri} does not match its entry`, mismatch);
        }
        const item = read.value.find((c) => c.uri === uri) ?? read.value[0];
        const value: SkillFile = {
          uri,
          bytes,
          ...(item && "text" in item && typeof item.text === "string" ? { text: item.text } : {}),
          ...(typeof item?.mimeType === "string" ? { mimeType: item.mimeType } : {}),
        };
        cache.set(uri, value);
        return { ok: true, value };
      },
    };
  }
}

function describe(issue: FieldIssue): string {
  const parts = [issue.field, issue.constraint];
  if (issue.expected !== undefined) parts.push(`expected ${issue.expected}`);
  if (issue.actual !== undefined) parts.push(`got ${JSON.stringify(issue.actual)}`);
  return parts.join(" ");
}
