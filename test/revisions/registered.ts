/**
 * The test-only protocol revisions, registered in the test process and in the servers the revision
 * suite spawns. Adding one: a folder beside this file and ONE import line below (docs/revisions.md).
 */
import "./next/index.js";
export {};
