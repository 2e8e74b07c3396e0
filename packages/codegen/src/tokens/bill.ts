/**
 * The token bill at design time: what the tool definitions of a design cost in a model's context,
 * per provider, per server, per toolset and per tool. Each tool is rendered by the runtime's own
 * provider adapter (`createProviderTools(...).definitions()`), the exact JSON a request carries, and
 * counted with the one tokenizer (`countTokens`, o200k_base). `gen --budget N` fails on it.
 */
import type { ToolSpec } from "@toolwright/runtime";
import { createProviderTools, type ProviderFormat, type ToolRunner } from "@toolwright/runtime/providers";
import type { IrDesign, IrTool } from "../ir/ir.js";
import { countTokens, TOKEN_ENCODING } from "./count.js";

/** The provider formats a bill covers, in report order. */
export const BILL_FORMATS: readonly ProviderFormat[] = ["openai-chat", "openai-responses", "anthropic", "gemini"];

/** Tokens per provider format. */
export type TokensByFormat = { readonly [F in ProviderFormat]: number };

/** One tool's line in the bill. */
export interface ToolBill {
  /** `<toolset>.<tool>`. */
  readonly id: string;
  readonly toolset: string;
  readonly server: string;
  readonly tokens: TokensByFormat;
  /** The most any provider pays for this tool. */
  readonly max: number;
}

/** A group (toolset or server): the sum of its tools. */
export interface GroupBill {
  readonly name: string;
  readonly tools: number;
  readonly tokens: TokensByFormat;
  /** The most any provider pays for the whole group (what `--budget` compares). */
  readonly max: number;
}

/** The whole bill. */
export interface TokenBill {
  /** The tokenizer the counts are in. */
  readonly encoding: typeof TOKEN_ENCODING;
  readonly formats: readonly ProviderFormat[];
  readonly total: TokensByFormat;
  readonly servers: readonly GroupBill[];
  readonly toolsets: readonly GroupBill[];
  readonly tools: readonly ToolBill[];
  /** The five most expensive tools (by `max`), most expensive first. */
  readonly top: readonly ToolBill[];
}

/** A toolset over its budget. */
export interface BudgetOverrun {
  readonly toolset: string;
  readonly format: ProviderFormat;
  readonly tokens: number;
  readonly budget: number;
}

/** The spec the runtime would hold for an IR tool: only what the adapters read to render a definition. */
function specOf(tool: IrTool): ToolSpec {
  return {
    id: tool.id,
    toolset: tool.toolset.name,
    name: tool.name,
    providerName: tool.providerName,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.input.json as { readonly [key: string]: unknown },
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    ...(tool.exampleJson === undefined ? {} : { exampleJson: tool.exampleJson }),
    ...(tool.examplesJson === undefined ? {} : { examplesJson: tool.examplesJson }),
    // Never called: the bill renders definitions and runs nothing.
    decodePayload: (value: unknown) => ({ ok: true, value }),
  };
}

function runnerOf(specs: readonly ToolSpec[]): ToolRunner {
  const byId = new Map(specs.map((s) => [s.id, s]));
  return {
    specs: () => specs,
    lookup: (name) => {
      const spec = byId.get(name) ?? specs.find((s) => s.providerName === name);
      return spec ? { spec, caller: { server: spec.toolset } } : undefined;
    },
    execute: async () => ({ ok: false, failure: { kind: "unavailable", message: "the token bill runs no tools" } }) as never,
  };
}

function zero(): { [F in ProviderFormat]: number } {
  return { "openai-chat": 0, "openai-responses": 0, anthropic: 0, gemini: 0 };
}

function maxOf(tokens: TokensByFormat): number {
  return Math.max(...BILL_FORMATS.map((f) => tokens[f]));
}

function group(name: string, tools: readonly ToolBill[]): GroupBill {
  const tokens = zero();
  for (const t of tools) for (const f of BILL_FORMATS) tokens[f] += t.tokens[f];
  return { name, tools: tools.length, tokens, max: maxOf(tokens) };
}

/** Definition tokens for every tool of `design`, rendered per provider as the runtime adapters send them. */
export function tokenBill(design: IrDesign): TokenBill {
  const irTools = design.toolsets.flatMap((t) => t.tools);
  const specs = irTools.map(specOf);
  const perTool = new Map<string, { [F in ProviderFormat]: number }>(specs.map((s) => [s.id, zero()]));
  for (const format of BILL_FORMATS) {
    // One tool per adapter: the bill prices every tool, past a provider's per-request cap too.
    for (const spec of specs) {
      const [definition] = createProviderTools(runnerOf([spec]), { format, toolSearch: false }).definitions();
      const counts = perTool.get(spec.id);
      if (counts) counts[format] = countTokens(JSON.stringify(definition));
    }
  }
  const tools: ToolBill[] = irTools.map((t) => {
    const tokens = perTool.get(t.id) ?? zero();
    return { id: t.id, toolset: t.toolset.name, server: t.toolset.server, tokens, max: maxOf(tokens) };
  });
  const toolsets = design.toolsets.map((t) =>
    group(
      t.name,
      tools.filter((b) => b.toolset === t.name),
    ),
  );
  const serverNames = [...new Set(design.toolsets.map((t) => t.server))];
  const servers = serverNames.map((s) =>
    group(
      s,
      tools.filter((b) => b.server === s),
    ),
  );
  const total = group("", tools).tokens;
  const top = [...tools].sort((a, b) => b.max - a.max || (a.id < b.id ? -1 : 1)).slice(0, 5);
  return { encoding: TOKEN_ENCODING, formats: BILL_FORMATS, total, servers, toolsets, tools, top };
}

/** Toolsets whose definitions cost more than `budget` tokens in some provider (the costliest provider each). */
export function budgetOverruns(bill: TokenBill, budget: number): BudgetOverrun[] {
  return bill.toolsets.flatMap((t) => {
    if (t.max <= budget) return [];
    const format = BILL_FORMATS.find((f) => t.tokens[f] === t.max) ?? "openai-chat";
    return [{ toolset: t.name, format, tokens: t.max, budget }];
  });
}

function row(tokens: TokensByFormat): string {
  return BILL_FORMATS.map((f) => `${f} ${tokens[f]}`).join(", ");
}

/** The bill as text lines for the terminal. */
export function billLines(bill: TokenBill): string[] {
  if (bill.tools.length === 0) return [];
  const lines = [`token bill (${bill.encoding} tokens of tool definitions as each provider adapter sends them):`];
  lines.push(`  total: ${row(bill.total)}`);
  // A server line only adds something when the server is not already one toolset of the same name.
  const plain = new Set(bill.toolsets.map((t) => t.name));
  for (const s of bill.servers)
    if (!plain.has(s.name) || bill.toolsets.find((t) => t.name === s.name)?.tools !== s.tools)
      lines.push(`  server ${s.name} (${s.tools} tools): ${row(s.tokens)}`);
  for (const t of bill.toolsets) lines.push(`  toolset ${t.name} (${t.tools} tools): ${row(t.tokens)}`);
  lines.push(`  most expensive tools: ${bill.top.map((t) => `${t.id} ${t.max}`).join(", ")}`);
  return lines;
}

/** The message for budget overruns. */
export function overrunText(overruns: readonly BudgetOverrun[]): string {
  return overruns
    .map(
      (o) =>
        `error: toolset ${JSON.stringify(o.toolset)} costs ${o.tokens} definition tokens (${o.format}), over --budget ${o.budget}; trim descriptions or schemas, split the toolset, or raise the budget`,
    )
    .join("\n");
}
