/**
 * The design the conformance server's scaffold is generated from: the DSL-declared server in
 * design.ts. Regenerate with
 *   toolwright gen test/conformance/server/scaffold-design.ts --out test/conformance/server/gen
 */
import { design } from "@toolwright/dsl";
import { conformanceServer } from "./design.js";

export default design({ servers: [conformanceServer] });
