/**
 * The resources, resource templates and prompts the official server scenarios expect, as
 * `@toolwright/runtime/server` definitions passed to the generated scaffold's options.
 */
import type { ServerPrompt, ServerResource, ServerResourceTemplate, ServerSkill } from "../../../packages/runtime/src/server.js";

const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const CITIES = ["paris", "park", "party", "prague", "porto"];

export const resources: readonly ServerResource[] = [
  {
    uri: "test://static-text",
    name: "static-text",
    description: "A static text resource",
    mimeType: "text/plain",
    read: () => "This is the content of the static text resource.",
  },
  {
    uri: "test://static-binary",
    name: "static-binary",
    description: "A static binary resource (a 1x1 PNG)",
    mimeType: "image/png",
    read: () => ({ blob: PNG_1X1 }),
  },
  {
    uri: "test://watched-resource",
    name: "watched-resource",
    description: "A resource clients may subscribe to",
    mimeType: "text/plain",
    read: () => "Watched resource content.",
  },
];

export const resourceTemplates: readonly ServerResourceTemplate[] = [
  {
    uriTemplate: "test://template/{id}/data",
    name: "template-data",
    description: "Data for one id",
    mimeType: "application/json",
    read: (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
    complete: { id: (value) => ["1", "2", "3", "123"].filter((v) => v.startsWith(value)) },
  },
];

const say = (text: string) => ({ role: "user" as const, content: { type: "text" as const, text } });

export const prompts: readonly ServerPrompt[] = [
  {
    name: "test_simple_prompt",
    description: "A simple prompt without arguments",
    get: () => ({ messages: [say("This is a simple prompt for testing.")] }),
  },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt with two required arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
    get: ({ arg1, arg2 }) => ({ messages: [say(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)] }),
    complete: { arg1: (value) => CITIES.filter((c) => c.startsWith(value.toLowerCase())) },
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt embedding a resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
    get: ({ resourceUri }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: resourceUri as string, mimeType: "text/plain", text: "Embedded resource content for testing." },
          },
        },
        say("Please process the embedded resource above."),
      ],
    }),
  },
  {
    name: "test_prompt_with_image",
    description: "A prompt with an image",
    get: () => ({
      messages: [
        { role: "user", content: { type: "image", data: PNG_1X1, mimeType: "image/png" } },
        say("Please analyze the image above."),
      ],
    }),
  },
  {
    name: "test_input_required_result_prompt",
    description: "A prompt that asks the client for context first",
    get: async (_args, ctx) => {
      const answer = (await ctx.input("user_context", "elicitation/create", {
        message: "What context should the prompt use?",
        requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] },
      })) as { content?: { context?: unknown } };
      return { messages: [say(`Prompt with context: ${String(answer.content?.context ?? "none")}`)] };
    },
  },
];

/** One skill (SEP-2640) with a supporting file, for the harness's skills scenarios (server/discover declares the extension). */
export const skills: readonly ServerSkill[] = [
  {
    path: "conformance-notes",
    files: {
      "SKILL.md":
        "---\nname: conformance-notes\ndescription: How this server answers the conformance harness\n---\n\nRead references/SCENARIOS.md first.\n",
      "references/SCENARIOS.md": "Every server scenario of the harness runs against the generated scaffold.\n",
    },
  },
];
