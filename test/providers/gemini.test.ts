/**
 * The real @google/genai client against a 127.0.0.1 endpoint replaying scripted answers: function
 * declarations with the Gemini schema variant, functionCall parts (no ids, as Gemini sends them)
 * run against the real servers, and functionResponse parts in the next request.
 */
import { join } from "node:path";
import { type Content, GoogleGenAI } from "@google/genai";
import { createProviderTools } from "@toolwright/runtime/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";
import { geminiAnswer, type ScriptedProvider, startScriptedProvider } from "../../examples/providers/scripted-provider.js";

let servers: RealServers;
let provider: ScriptedProvider;
beforeAll(async () => {
  servers = startRealServers();
  provider = await startScriptedProvider();
});
afterAll(async () => {
  await provider.close();
  await servers.close();
});

describe("Gemini generateContent", () => {
  it("declares the tools, runs the function calls and answers with functionResponse parts by name", async () => {
    const path = "/v1beta/models/gemini-test:generateContent";
    const notes = join(servers.root, "notes.txt");
    provider.script(
      path,
      geminiAnswer([
        { functionCall: { name: "filesystem_read_text_file", args: { path: notes } } },
        { functionCall: { name: "memory_search_nodes", args: { query: "Ada" } } },
        { functionCall: { name: "memory_search_everything", args: {} } },
      ]),
      geminiAnswer([{ text: "The notes are about Ada." }]),
    );
    const tools = createProviderTools(servers.runtime, { format: "gemini" });
    const ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: provider.url } });
    const config = { tools: [{ functionDeclarations: tools.definitions() }] };
    const contents: Content[] = [{ role: "user", parts: [{ text: "What do the notes say?" }] }];
    const first = await ai.models.generateContent({ model: "gemini-test", contents, config });
    const { messages, outcomes } = await tools.run(first);
    contents.push(first.candidates?.[0]?.content as Content, ...messages);
    const second = await ai.models.generateContent({ model: "gemini-test", contents, config });
    expect(second.text).toBe("The notes are about Ada.");

    expect(outcomes.map((o) => o.result.ok)).toEqual([true, true, false]);
    const sent = provider.requests(path)[1]?.contents as {
      role: string;
      parts: { functionResponse?: { id: string; name: string; response: { output?: string; error?: string } } }[];
    }[];
    const responses = (sent.at(-1)?.parts ?? []).map((p) => p.functionResponse);
    expect(responses.map((r) => [r?.id, r?.name, r?.response.output !== undefined])).toEqual([
      ["call_0", "filesystem_read_text_file", true],
      ["call_1", "memory_search_nodes", true],
      ["call_2", "memory_search_everything", false],
    ]);
    expect(responses[0]?.response.output).toContain("Ada wrote the first program.");
    expect(responses[2]?.response.error).toMatch(
      /There is no tool named "memory_search_everything"[\s\S]*Closest tools: memory_search_nodes/,
    );
    const sentTools = (provider.requests(path)[0]?.tools ?? []) as {
      functionDeclarations: { name: string; parametersJsonSchema: { $schema?: string } }[];
    }[];
    const declared = sentTools[0]?.functionDeclarations ?? [];
    expect(declared).toHaveLength(23);
    expect(declared.every((d) => /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/.test(d.name) && d.parametersJsonSchema.$schema === undefined)).toBe(
      true,
    );
  });
});
