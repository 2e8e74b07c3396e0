/**
 * The shapes of the poisoning lint's findings (catalogue-lint.ts re-exports them): apart so the
 * rule files can name a finding without importing the lint that runs them.
 */

/**
 * How bad a finding is: `high` is a likely attack, `medium` needs a look, `low` is a smell
 * (a long description, a non-ASCII name that cannot pass for another, a secret file merely named).
 */
export type LintSeverity = "high" | "medium" | "low";

/** The rules. */
export type LintRule =
  | "bidi-control"
  | "invisible-unicode"
  | "confusable-name"
  | "hidden-instructions"
  | "secret-access"
  | "other-tools-data"
  | "hidden-comment"
  | "long-description"
  | "cross-server-tool"
  | "remote-image"
  | "exfil-url"
  | "encoded-payload"
  | "malformed-entry";

/** One finding, with where it is: server, tool (or prompt/resource; absent for instructions) and field path. */
export interface LintFinding {
  readonly rule: LintRule;
  readonly severity: LintSeverity;
  readonly server: string;
  /** `tool` for tool entries; `instructions`, `prompt`, `resource` for the others. */
  readonly kind: "tool" | "instructions" | "prompt" | "resource";
  /** Tool or prompt name, resource URI; absent for instructions. */
  readonly tool?: string;
  /** Field path inside the entry: `name`, `description`, `inputSchema.properties.path.description`, `instructions`. */
  readonly field: string;
  readonly message: string;
  /** The offending text around the match, JSON-quoted so invisible characters show as escapes. */
  readonly excerpt: string;
}
