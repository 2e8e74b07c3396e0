/**
 * Golden case: a live catalogue. `fromMCP(externalServer(...))` takes its tools from the pulled
 * snapshot in design.lock.json (real server-everything tools/list entries, draft-07 schemas); one
 * tool is overridden inline with a stricter schema.
 */
import { design, externalServer, fromMCP, number, object, toolset } from "@toolwright/dsl";

const server = externalServer("everything", { command: "node", args: ["server-everything/dist/index.js", "stdio"] }, (t) => {
  t.tool("get-sum", {
    title: "Get Sum Tool",
    description: "Returns the sum of two numbers (inline override: finite, closed payload)",
    input: object({ a: number({ minimum: -1e9, maximum: 1e9 }), b: number({ minimum: -1e9, maximum: 1e9 }) }),
  });
});

export default design({ toolsets: [toolset("everything", fromMCP(server))] });
