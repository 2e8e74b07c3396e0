/**
 * The built-in revisions, registered once. Callers, the task layer, the manager and the server
 * import the registry from here, so asking for a revision always finds the built-in ones.
 */
import { statelessRevision } from "./2026-07-28/revision.js";
import { STATELESS_REVISION_NAME } from "./2026-07-28/versions.js";
import { legacyRevision } from "./legacy/revision.js";
import { LEGACY_NAME, registerRevision } from "./revision.js";

registerRevision(legacyRevision);
registerRevision(statelessRevision);

/** The built-in revisions' names, as `mcp.json` and the `era` option spell them (the config schema's enum). */
export const BUILT_IN_ERAS = [LEGACY_NAME, STATELESS_REVISION_NAME] as const;

export {
  discoverVersions,
  LEGACY_NAME,
  listRevisions,
  type Revision,
  type RevisionIdentity,
  registerRevision,
  revisionForVersion,
  revisionNamed,
  revisionOf,
  type TaskRecord,
} from "./revision.js";
