/**
 * The floors of @toolwright/runtime (docs/architecture.md draws them), bottom first. A folder
 * imports only its own files and folders on lower floors; folders on one floor never import each
 * other. Each entry (packages/runtime/src/<entry>.ts) is the face of one folder and re-exports that
 * folder and lower floors only. `.dependency-cruiser.cjs` turns both tables into lint rules;
 * scripts/count-exports.mjs and test/architecture read them too.
 *
 * A room may span folders that import each other freely (ROOMS): the protocol's revisions/ are
 * part of the protocol.
 *
 * Why planner/ sits under core/: it never imports core/, and the root entry (the face of core/)
 * hands applications the planner's rendering and model-call helpers. core/ still never imports the
 * planner (rule `core-does-not-import-wings`): the runtime core stays model-agnostic.
 */
const FLOORS = [
  ["failure"],
  ["protocol", "schema"],
  ["transport"],
  ["auth", "server"],
  ["caller", "client-features"],
  ["planner"],
  ["core"],
  ["catalogue", "durable"],
  ["manager"],
  ["codegen"],
];

/** Rooms of more than one folder: room → its folders (a folder not listed is a room of its own). */
const ROOMS = { protocol: ["protocol", "revisions"] };

/** Entry file (without `.ts`) → the room it is the face of. */
const ENTRY_HOME = {
  index: "core",
  stdio: "caller",
  http: "caller",
  caller: "caller",
  auth: "auth",
  "client-features": "client-features",
  protocol: "protocol",
  catalogue: "catalogue",
  codegen: "codegen",
  manager: "manager",
  durable: "durable",
  providers: "planner",
  server: "server",
};

/** The room a folder belongs to. */
function roomOf(folder) {
  return Object.keys(ROOMS).find((room) => ROOMS[room].includes(folder)) ?? folder;
}

/** Every folder on a floor. */
const FOLDERS = FLOORS.flat().flatMap((room) => ROOMS[room] ?? [room]);

/** The floor number of a folder (undefined for a folder not on a floor). */
function floorOf(folder) {
  const i = FLOORS.findIndex((floor) => floor.includes(roomOf(folder)));
  return i < 0 ? undefined : i;
}

/** Folders `folder` may not import: every folder of another room on its floor or above. */
function notBelow(folder) {
  const mine = floorOf(folder);
  return FOLDERS.filter((f) => roomOf(f) !== roomOf(folder) && floorOf(f) >= mine);
}

module.exports = { FLOORS, ROOMS, FOLDERS, ENTRY_HOME, roomOf, floorOf, notBelow };
