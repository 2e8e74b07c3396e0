/**
 * Ranking for tool search: BM25 over each tool's name, title, description, tags and annotation
 * words. Hand-written (a few dozen lines) because the runtime has no dependencies.
 */
import type { ToolSpec } from "../../caller/tool-spec.js";

/** Lower-case word stems of `text`: camelCase, snake_case, kebab-case and dotted names split. */
export function searchTokens(text: string): string[] {
  // One-letter tokens would match everything. A crude suffix strip on words over four letters
  // folds "tools" to "tool" and "listing" to "list"; short words ("bus") are left alone.
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1)
    .map((w) => (w.length > 4 ? w.replace(/(ies|es|s|ing|ed)$/, (m) => (m === "ies" ? "y" : "")) : w));
}

/** Words a query may use for what an annotation means ("safe", "delete"), so annotations are searchable. */
const ANNOTATION_WORDS: { readonly [key: string]: string } = {
  readOnly: "read only readonly safe get list view",
  destructive: "destructive delete remove overwrite",
  idempotent: "idempotent",
  openWorld: "external web internet",
};

/** One tool as a bag of tokens. Name (x3), title and tags (x2) are repeated: a match there says more than one in prose. */
function document(spec: ToolSpec): string[] {
  const name = `${spec.providerName} ${spec.name}`;
  const words = [name, name, name, spec.title ?? "", spec.title ?? "", spec.description ?? "", ...(spec.tags ?? []), ...(spec.tags ?? [])];
  for (const [key, text] of Object.entries(ANNOTATION_WORDS))
    if ((spec.annotations as { readonly [key: string]: unknown } | undefined)?.[key] === true) words.push(text);
  return searchTokens(words.join(" "));
}

/** The `limit` specs that best match `query` (ties keep registration order). An empty query lists the first ones. */
export function rankTools(query: string, specs: readonly ToolSpec[], limit: number): ToolSpec[] {
  const terms = [...new Set(searchTokens(query))];
  if (terms.length === 0) return specs.slice(0, limit);
  const docs = specs.map(document);
  const avg = docs.reduce((n, d) => n + d.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  // The textbook BM25 parameters: k1 caps how much repeating a term helps, b how much long
  // descriptions are discounted.
  const k1 = 1.2;
  const b = 0.75;
  const scored = docs.map((d, i) => {
    let score = 0;
    for (const term of terms) {
      // A prefix match for longer terms ("calend" finds "calendar"): models often search with a stem.
      const tf = d.filter((t) => t === term || (term.length >= 4 && t.startsWith(term))).length;
      if (tf === 0) continue;
      const n = df.get(term) ?? 1;
      // The "+1" form of IDF never goes negative: a term every tool has still counts a little.
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      score += idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.length) / avg)));
    }
    return { i, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((x, y) => y.score - x.score || x.i - y.i)
    .slice(0, limit)
    .map((s) => specs[s.i] as ToolSpec);
}
