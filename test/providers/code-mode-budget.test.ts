/**
 * Result budgets in code mode, with the real Anthropic client against a scripted 127.0.0.1 endpoint
 * and the real server-filesystem: a program reads a 2 MB file and returns it. The model is shown a
 * first page and a notice with the handle (never a silent cut), pages on with `read_result`, and
 * every page is the file's own text at the offset it asked for. A small object answer is shown whole.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { createCodeModeTools } from "@toolwright/code-mode";
import { createProviderTools, createTokenAccount } from "@toolwright/runtime/providers";
import { afterEach, describe, expect, it } from "vitest";
import { filesystemCodeMode } from "../../examples/catalogues/src/gen/filesystem/code-mode.gen.js";
import { memoryCodeMode } from "../../examples/catalogues/src/gen/memory/code-mode.gen.js";
import { catalogueCodeMode } from "../../examples/code-mode/programs.js";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";
import { anthropicMessage, type ScriptedProvider, startScriptedProvider } from "../../examples/providers/scripted-provider.js";
import { countTokens } from "../../packages/codegen/src/tokens/count.js";

let servers: RealServers | undefined;
let provider: ScriptedProvider | undefined;
afterEach(async () => {
  await servers?.close();
  await provider?.close();
  servers = undefined;
  provider = undefined;
});

/** About 2 MB of numbered lines, so any page can be checked against the file at its offset. */
function bigFile(path: string): string {
  const lines: string[] = [];
  for (let i = 0; i < 42_000; i++) lines.push(`line ${String(i).padStart(6, "0")}: the quick brown fox jumps over it`);
  const text = lines.join("\n");
  writeFileSync(path, text);
  return text;
}

const BIG = { memoryBytes: 256 * 1024 * 1024, maxResultBytes: 32 * 1024 * 1024 };

type Block = { type: string; tool_use_id?: string; content?: unknown };
/** The first tool_result block of the last message of a request the endpoint received. */
const lastResult = (request: { [key: string]: unknown } | undefined): Block | undefined =>
  ((request?.messages as { content: Block[] }[] | undefined)?.at(-1)?.content ?? [])[0];
const resultText = (block: Block | undefined) =>
  typeof block?.content === "string"
    ? block.content
    : ((block?.content as { text: string }[] | undefined) ?? []).map((c) => c.text).join("");

describe("result budgets in code mode (run_code over server-filesystem)", () => {
  it("a 2 MB answer is a first page plus a handle; read_result pages the rest; the turn stays under 20K tokens", async () => {
    servers = startRealServers();
    provider = await startScriptedProvider();
    const path = join(servers.root, "big.log");
    const text = bigFile(path);
    expect(text.length).toBeGreaterThan(1_900_000);
    const tools = createProviderTools(servers.runtime, {
      format: "anthropic",
      // A program may hold and return a 2 MB value: the sandbox's heap and result limits are raised for it.
      codeMode: { plugin: createCodeModeTools({ apis: [filesystemCodeMode, memoryCodeMode], countTokens, limits: BIG }), mode: "code" },
      resultBudget: { toolTokens: 4_000, turnTokens: 20_000, countTokens },
    });
    const program = `const file = await filesystem.readTextFile({ path: ${JSON.stringify(path)} });\nreturn file.content;`;
    provider.script(
      "/v1/messages",
      anthropicMessage([{ type: "tool_use", id: "tu1", name: "run_code", input: { code: program } }]),
      anthropicMessage([{ type: "tool_use", id: "tu2", name: "read_result", input: { handle: "res_1", offset: 10_000, limit: 6_000 } }]),
      anthropicMessage([{ type: "text", text: "Read." }]),
    );
    // Retries: the first program loads TypeScript and reads 2 MB, long enough for the endpoint's
    // idle keep-alive socket to close under the client (a reset before the request is read); the
    // request count below still proves each answer was used once.
    const client = new Anthropic({ apiKey: "test", baseURL: provider.url, maxRetries: 2 });
    const history: Anthropic.Messages.MessageParam[] = [{ role: "user", content: "What is in big.log?" }];
    for (let turn = 0; turn < 5; turn++) {
      const message = await client.messages.create({ model: "test", max_tokens: 256, messages: history, tools: tools.definitions() });
      const { messages, outcomes } = await tools.run(message);
      if (outcomes.length === 0) break;
      history.push({ role: "assistant", content: message.content }, ...messages);
    }
    const sent = provider.requests("/v1/messages");
    expect(sent).toHaveLength(3);
    expect(((sent[0]?.tools ?? []) as { name: string }[]).map((t) => t.name)).toEqual(["run_code", "search", "describe", "read_result"]);
    // Turn 1: the answer as the model saw it: the file's first characters, then the notice naming the handle.
    const first = resultText(lastResult(sent[1]));
    expect(countTokens(first)).toBeLessThanOrEqual(4_000);
    const notice =
      /\[This result is (\d+) tokens \((\d+) characters\), over its 4000-token budget\. Shown: characters 0-(\d+)\. The full result is held as res_1/.exec(
        first,
      );
    expect(notice).not.toBeNull();
    const shown = Number(notice?.[3]);
    expect(shown).toBeGreaterThan(1_000);
    // The held answer is the program's value as JSON text: a JSON string of the whole file.
    expect(Number(notice?.[2])).toBe(JSON.stringify(text).length);
    expect(first.startsWith(JSON.stringify(text).slice(0, shown))).toBe(true);
    // Turn 2: read_result gave the held text at the offset asked for, and said where the next page starts.
    const page = resultText(lastResult(sent[2]));
    const held = JSON.stringify(text);
    expect(page.startsWith(held.slice(10_000, 16_000))).toBe(true);
    expect(page).toContain(`res_1: characters 10000-16000 of ${held.length}. Next: read_result {"handle":"res_1","offset":16000`);
    expect(countTokens(page)).toBeLessThanOrEqual(4_000);
    // The file on disk is untouched and whole: the budget held it, nothing was cut from the source.
    expect(readFileSync(path, "utf8").length).toBe(text.length);
  });

  it("a small object answer is shown whole, and console output counts toward the same budget", async () => {
    servers = startRealServers();
    const tools = createProviderTools(servers.runtime, {
      format: "anthropic",
      codeMode: { plugin: catalogueCodeMode(), mode: "code" },
      resultBudget: { toolTokens: 300, countTokens },
    });
    const notes = JSON.stringify(join(servers.root, "notes.txt"));
    const small = await tools.runCall({
      id: "a",
      name: "run_code",
      arguments: { code: `const f = await filesystem.readTextFile({ path: ${notes} });\nreturn { lines: f.content.split("\\n").length };` },
    });
    expect(small.text).toBe('{"lines":3}');
    // Printing a lot is no way around the budget: the console is part of the answer, spilled whole.
    const noisy = await tools.runCall({
      id: "b",
      name: "run_code",
      arguments: { code: `for (let i = 0; i < 500; i++) console.log("noise " + i);\nreturn "done";` },
    });
    expect(noisy.text).toMatch(/over its 300-token budget/);
    expect(noisy.text).toMatch(/held as res_\d+/);
    expect(countTokens(noisy.text)).toBeLessThanOrEqual(300);
    const handle = /held as (res_\d+)/.exec(noisy.text)?.[1] as string;
    const rest = await tools.runCall({ id: "c", name: "read_result", arguments: { handle, offset: 0, limit: 100_000 } });
    expect(rest.text.startsWith('"done"\nconsole:\n[log] noise 0\n')).toBe(true);
    expect(countTokens(rest.text)).toBeLessThanOrEqual(300);
  });

  it("the token account attributes what code mode kept out of the context: the calls' results, not the answer", async () => {
    servers = startRealServers();
    const account = createTokenAccount();
    const tools = createProviderTools(servers.runtime, {
      format: "anthropic",
      codeMode: { plugin: catalogueCodeMode(), mode: "code" },
      resultBudget: { toolTokens: 2_000, countTokens, account },
    });
    const path = join(servers.root, "mid.log");
    const lines = Array.from({ length: 800 }, (_, i) => `entry ${i}: status ok, latency ${(i * 37) % 500} ms`);
    writeFileSync(path, lines.join("\n"));
    const program = `const f = await filesystem.readTextFile({ path: ${JSON.stringify(path)} });
const g = await filesystem.readTextFile({ path: ${JSON.stringify(path)} });
return f.content.split("\\n").length + g.content.split("\\n").length;`;
    const answer = await tools.runCall({ id: "t", name: "run_code", arguments: { code: program } });
    expect(answer.text).toBe("1600");
    // The same file read directly: the text a direct call would have put in the context, twice.
    const direct = await servers.runtime.execute({ tool: "filesystem.read_text_file", arguments: { path } });
    expect(direct.ok).toBe(true);
    const directText = (direct.ok ? (direct.content ?? []) : []).flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    expect(directText).toContain("entry 799");
    const bill = account.attribution();
    expect(bill.codeModeRuns).toBe(1);
    expect(bill.codeModeIntermediateTokens).toBe(2 * countTokens(directText));
    expect(bill.resultTokensReturned).toBe(countTokens("1600"));
    expect(bill.savedByCodeMode).toBe(bill.codeModeIntermediateTokens - countTokens("1600"));
    expect(bill.savedByCodeMode).toBeGreaterThan(10_000);
  });
});
