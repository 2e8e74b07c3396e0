/** A deliberately wrong use of generated code: proves the strict check can fail. */

import { createInMemoryCaller } from "@toolwright/runtime";
import { createEverythingClient } from "../../examples/everything/src/gen/everything/index.js";

export const wrong = createEverythingClient(createInMemoryCaller("x", {})).getSum({ a: "not a number", b: 2 });
