/**
 * The server side of the skills extension (`io.modelcontextprotocol/skills`, SEP-2640): each
 * skill's files become `skill://<path>/<file>` resources read with `resources/read`, and
 * `skills/list` / `skills/get` answer entries whose frontmatter is parsed from `SKILL.md` and whose
 * `resources` manifest carries every file's SHA-256 digest and size, computed once at creation.
 */
import { createHash } from "node:crypto";
import { parseFrontmatter } from "../protocol/frontmatter.js";
import type { ResourceContents, ResourceDescriptor } from "../protocol/mcp-types.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import type { SkillEntry } from "../protocol/skills.js";
import { decodeCursor, encodeCursor } from "./tool-catalog.js";
import type { ServerSkill } from "./types.js";

/** The skills of one server. */
export interface SkillsServer {
  readonly size: number;
  /** `skills/list`, paged. */
  list(params: { readonly [key: string]: unknown }): { readonly [key: string]: unknown };
  /** `skills/get`: -32602 for a URI that is not a skill's SKILL.md. */
  get(params: { readonly [key: string]: unknown }): { readonly [key: string]: unknown };
  /** The contents of a skill file, or undefined when `uri` is none. */
  read(uri: string): ResourceContents[] | undefined;
  /** `resources/list` entries for each skill's SKILL.md (name and description from its frontmatter). */
  readonly listed: readonly ResourceDescriptor[];
}

const SEGMENT = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const PAGE_SIZE = 100;

function mimeOf(file: string): string {
  if (file.endsWith(".md")) return "text/markdown";
  if (file.endsWith(".json")) return "application/json";
  if (file.endsWith(".py")) return "text/x-python";
  return "text/plain";
}

/** Indexes `skills`; throws a `TypeError` naming the skill and file for anything an entry could not honestly describe. */
export function createSkillsServer(skills: readonly ServerSkill[]): SkillsServer {
  const entries = new Map<string, SkillEntry>();
  const files = new Map<string, { readonly body: string | Uint8Array; readonly mimeType: string }>();
  for (const skill of skills) {
    const where = `createToolServer: skill "${skill.path}"`;
    const segments = skill.path.split("/");
    // "." and ".." would let two URIs name one skill, or a skill name a file outside its own folder.
    if (segments.some((s) => s === "" || s === "." || s === "..")) throw new TypeError(`${where}: the path must be "/"-separated names`);
    const skillMd = skill.files["SKILL.md"];
    if (typeof skillMd !== "string") throw new TypeError(`${where}: needs a SKILL.md text file`);
    const front = parseFrontmatter(skillMd);
    if (!front.ok) throw new TypeError(`${where}: SKILL.md: ${front.message}`);
    const { name, description } = front.value;
    if (typeof name !== "string" || typeof description !== "string")
      throw new TypeError(`${where}: SKILL.md frontmatter needs name and description strings`);
    // Agent Skills: the name is the directory name, lowercase words joined by hyphens.
    if (name !== segments[segments.length - 1] || !SEGMENT.test(name) || name.length > 64)
      throw new TypeError(`${where}: the frontmatter name "${name}" must equal the path's last segment and be lowercase-hyphenated`);
    const root = `skill://${skill.path}`;
    const manifest = Object.entries(skill.files).map(([file, body]) => {
      if (file.startsWith("/") || file.split("/").some((s) => s === "" || s === "." || s === ".."))
        throw new TypeError(`${where}: file "${file}" must be a relative path inside the skill`);
      // Digest and size over the bytes a client receives (UTF-8 for text), so its own check can match.
      const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
      const uri = `${root}/${file}`;
      files.set(uri, { body, mimeType: mimeOf(file) });
      return { uri, digest: `sha256:${createHash("sha256").update(bytes).digest("hex")}`, size: bytes.byteLength };
    });
    const uri = `${root}/SKILL.md`;
    if (entries.has(uri)) throw new TypeError(`${where}: declared twice`);
    // The entry carries the frontmatter as parsed from SKILL.md, so a host can verify one against the other.
    entries.set(uri, { uri, frontmatter: { ...front.value, name, description }, resources: manifest });
  }
  const all = [...entries.values()];
  const listed = all.map((e) => ({
    uri: e.uri,
    name: e.frontmatter.name,
    description: e.frontmatter.description,
    mimeType: "text/markdown",
  }));
  return {
    size: all.length,
    listed,
    list(params) {
      const offset = params.cursor === undefined ? 0 : decodeCursor(params.cursor, all.length);
      const next = offset + PAGE_SIZE < all.length ? { nextCursor: encodeCursor(offset + PAGE_SIZE) } : {};
      return { skills: all.slice(offset, offset + PAGE_SIZE), ...next, ttlMs: 0, cacheScope: "public" };
    },
    get(params) {
      const entry = typeof params.uri === "string" ? entries.get(params.uri) : undefined;
      if (!entry)
        throw new RpcHandlerError(-32602, `Unknown skill: ${JSON.stringify(params.uri)} is not the SKILL.md of a skill this server serves`);
      return { skill: entry, ttlMs: 0, cacheScope: "public" };
    },
    read(uri) {
      const file = files.get(uri);
      if (!file) return undefined;
      // Binary files travel base64 as blob contents, typed octet-stream whatever their name.
      return typeof file.body === "string"
        ? [{ uri, mimeType: file.mimeType, text: file.body }]
        : [{ uri, mimeType: "application/octet-stream", blob: Buffer.from(file.body).toString("base64") }];
    },
  };
}
