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
