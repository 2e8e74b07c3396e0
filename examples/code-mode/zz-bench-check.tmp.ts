import { runWorkflow } from "/work/wt/i29-ex-a/examples/code-mode/task.ts";
import { WORKFLOWS } from "/work/wt/i29-ex-a/examples/code-mode/workflows.ts";
for (const w of WORKFLOWS) {
  const d = await runWorkflow(w, "direct");
  const c = await runWorkflow(w, "code");
  console.log(w.name, "direct", d.done, d.failures, "code", c.done, c.failures);
}
