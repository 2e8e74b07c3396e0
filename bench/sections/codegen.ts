/** Section 8: placeholder until `toolwright gen` exists (replaced below). */
import type { Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";

export async function measureCodegen(_config: BenchConfig, _log: (line: string) => void): Promise<{ rows: Row[]; notes: string[] }> {
  return { rows: [], notes: ["Codegen section skipped: not written yet."] };
}
