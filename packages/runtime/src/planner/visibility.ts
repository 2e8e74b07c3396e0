/**
 * MCP Apps (`_meta.ui`): a tool whose `visibility` leaves out "model" exists for its app's UI only.
 * The planner side never offers it to a model and refuses a model call naming it; its UI resources
 * (`ui://` URIs) stay readable through `readResource`.
 */
import type { ToolSpec } from "../caller/tool-spec.js";

/** True unless `meta.ui.visibility` is a list without "model" (absent means model and app). */
export function visibleToModel(meta: { readonly [key: string]: unknown } | undefined): boolean {
  const visibility = (meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return !Array.isArray(visibility) || visibility.includes("model");
}

/** True when a spec may be offered to a model. */
export function specVisibleToModel(spec: Pick<ToolSpec, "meta">): boolean {
  return visibleToModel(spec.meta);
}
