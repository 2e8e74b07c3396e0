/**
 * The Toolwright walking skeleton: three tools of @modelcontextprotocol/server-everything,
 * declared inline with the schemas the server reports in tools/list.
 * Generate with: npm run gen   (toolwright gen examples/everything/design.ts --out examples/everything/src/gen)
 */
import { design, enumOf, fromExternalMCP, number, object, string, toolset } from "@toolwright/dsl";

const readOnly = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const;

const everything = toolset("everything", fromExternalMCP("everything"), (t) => {
  t.description("Demo tools of the MCP reference server server-everything.");
  t.tool("echo", {
    title: "Echo Tool",
    description: "Echoes back the input string",
    input: object({ message: string().describe("Message to echo") }, { closed: false }),
    annotations: readOnly,
    examples: [{ message: "hello" }],
  });
  t.tool("get-sum", {
    title: "Get Sum Tool",
    description: "Returns the sum of two numbers",
    input: object({ a: number().describe("First number"), b: number().describe("Second number") }, { closed: false }),
    annotations: readOnly,
    examples: [{ a: 2, b: 3 }],
  });
  t.tool("get-structured-content", {
    title: "Get Structured Content Tool",
    description: "Returns structured content along with an output schema for client data validation",
    input: object({ location: enumOf(["New York", "Chicago", "Los Angeles"]).describe("Choose city") }, { closed: false }),
    output: object({
      temperature: number().describe("Temperature in celsius"),
      conditions: string().describe("Weather conditions description"),
      humidity: number().describe("Humidity percentage"),
    }),
    annotations: readOnly,
    examples: [{ location: "Chicago" }],
  });
  // Prompts and resources: typed readers in the generated client (getArgsPromptPrompt, readArchitecture...).
  t.prompt("simple-prompt", { description: "A prompt with no arguments" });
  t.prompt("args-prompt", {
    description: "A prompt with two arguments, one required and one optional",
    arguments: [{ name: "city", description: "Name of the city", required: true }, { name: "state" }],
  });
  t.prompt("resource-prompt", {
    description: "A prompt that includes an embedded resource reference",
    arguments: [
      { name: "resourceType", description: "Type of resource to fetch", required: true },
      { name: "resourceId", description: "ID of the text resource to fetch", required: true },
    ],
  });
  t.prompt("completable-prompt", {
    description: "First argument choice narrows values for second argument.",
    arguments: [
      { name: "department", description: "Choose the department.", required: true },
      { name: "name", description: "Choose a team member to lead the selected department.", required: true },
    ],
  });
  for (const doc of ["architecture", "extension", "features", "how-it-works", "instructions", "startup", "structure"]) {
    t.resource(`demo://resource/static/document/${doc}.md`, { name: `${doc}-doc`, mimeType: "text/markdown" });
  }
  t.resourceTemplate("demo://resource/dynamic/text/{resourceId}", { name: "dynamic-text", mimeType: "text/plain" });
  t.resourceTemplate("demo://resource/dynamic/blob/{resourceId}", { name: "dynamic-blob", mimeType: "application/octet-stream" });
});

export default design({ toolsets: [everything] });
