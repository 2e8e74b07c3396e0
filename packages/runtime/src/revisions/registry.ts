/**
 * The built-in revisions, registered once. Callers, the task layer, the manager and the server
 * import the registry from here, so asking for a revision always finds the built-in ones.
 */
import { statelessRevision } from "./2026-07-28/revision.js";
import { legacyRevision } from "./legacy/revision.js";
import { registerRevision } from "./revision.js";

registerRevision(legacyRevision);
registerRevision(statelessRevision);

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
