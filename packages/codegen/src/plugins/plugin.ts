/**
 * The plugin contract: a plugin reads the IR and prints files into the output.
 */
import type { Output } from "../emit/generated-file.js";
import type { IrDesign } from "../ir/ir.js";

/** A code generator plugin. */
export interface Plugin {
  readonly name: string;
  emit(ir: IrDesign, out: Output): void | Promise<void>;
}

/** Where generated code takes runtime symbols from. */
export const RUNTIME_CODEGEN = "@toolwright/runtime/codegen";

/** The runtime's application entry point (createRuntime and its options). */
export const RUNTIME_ROOT = "@toolwright/runtime";
