/**
 * A TEST-ONLY third protocol revision, `next` (version 2099-01-01): the stateless revision with one
 * change, a tool result that must carry a `receipt` string. Its server side adds the receipt to
 * every finished tool result (answers and task results); its client side refuses a result without
 * one. Importing this module registers it (test/revisions/registered.ts does, in one line).
 */
import type { CallToolResult } from "../../../packages/runtime/src/protocol.js";
import { MODERN_PROTOCOL_VERSION, type Revision, registerRevision, revisionNamed } from "../../../packages/runtime/src/protocol.js";

/** The revision `next` builds on. */
const stateless = revisionNamed(MODERN_PROTOCOL_VERSION) as Revision;
let issued = 0;

/** The test-only revision: 2026-07-28 plus a required `receipt` on every tool result. */
export const nextRevision: Revision = {
  ...stateless,
  name: "next",
  versions: ["2099-01-01"],
  decodeToolResult(raw) {
    const receipt = (raw as { readonly receipt?: unknown } | null | undefined)?.receipt;
    if (typeof receipt !== "string" || receipt === "")
      return { ok: false, fault: { type: "rpc", code: -32603, message: "tools/call result has no receipt (required by revision next)" } };
    return stateless.decodeToolResult(raw);
  },
  encodeToolResult: (result) => ({ ...result, receipt: `receipt-${++issued}` }) as CallToolResult,
};

registerRevision(nextRevision);
