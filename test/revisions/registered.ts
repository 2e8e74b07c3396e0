/**
 * The test-only protocol revisions, registered in the test process and in the servers the revision
 * suite spawns. Adding one: a folder beside this file and ONE import line below (docs/revisions.md).
 */
import "./next/index.js";
/** Loaded for its side effects; the export makes it a module whether or not a revision is listed above. */
export const loaded = true;
