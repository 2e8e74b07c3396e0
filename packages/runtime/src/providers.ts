/**
 * @toolwright/runtime/providers: tool definitions in each model provider's own JSON shape
 * (OpenAI Chat Completions and Responses, Anthropic Messages, Gemini), schema certification per
 * provider, the one-call helper from a response's tool calls to the next message, and tool search
 * for large catalogues, and the planner's helpers below `renderFailure` (model-call normalising,
 * content rendering, visibility). The face of `planner/`. Plain JSON: no provider SDK is imported.
 * @packageDocumentation
 */

export { normalizeModelCall } from "./planner/model-call.js";
export type { DefinitionProblem, ProviderTools, ProviderToolsOptions, ToolCallOutcome, ToolRunner } from "./planner/providers/binding.js";
export { createProviderTools, formatToolName, safeInParallel } from "./planner/providers/binding.js";
export type { CodeModeChoice, CodeModeDecision, CodeModeOptions, CodeModePlugin } from "./planner/providers/code-mode-seam.js";
export { decideCodeMode } from "./planner/providers/code-mode-seam.js";
export type {
  DiscoveryFallback,
  DiscoveryMode,
  DiscoveryOptions,
  DiscoveryPlan,
  DiscoverySend,
  DiscoveryTools,
} from "./planner/providers/discovery.js";
export { createDiscoveryTools } from "./planner/providers/discovery.js";
export type {
  AnthropicTool,
  AnthropicToolResultMessage,
  ExtractedCall,
  GeminiFunctionDeclaration,
  GeminiFunctionResponseContent,
  OpenAIChatTool,
  OpenAIChatToolMessage,
  OpenAIResponsesTool,
  OpenAIResponsesToolOutput,
  ProviderFormat,
  RenderedCall,
  ToolDefinitionOf,
  ToolMessagesOf,
} from "./planner/providers/formats.js";
export { extractToolCalls, PROVIDER_TOOL_CAP, SCHEMA_RULES, toolMessages } from "./planner/providers/formats.js";
export type { MetaArgsOptions, MetaField } from "./planner/providers/meta-args.js";
export { createMetaArgsDecoder } from "./planner/providers/meta-args.js";
export type { NeutralBinding, NeutralDiscovery, NeutralToolOptions } from "./planner/providers/neutral-binding.js";
export { createNeutralBinding } from "./planner/providers/neutral-binding.js";
export type { JsonSchema, SchemaNote, SchemaProvider, SchemaVariant } from "./planner/providers/schema-variants.js";
export {
  geminiPropertyNames,
  nullable,
  providerSchema,
  restoreArguments,
  SCHEMA_PROVIDERS,
  toAnthropicSchema,
  toGeminiSchema,
  toOpenAIStrictSchema,
} from "./planner/providers/schema-variants.js";
export { rankTools, searchTokens } from "./planner/providers/tool-rank.js";
export type { ToolSearchOptions } from "./planner/providers/tool-search.js";
export { createToolSearch, TOOL_SEARCH_SPECS } from "./planner/providers/tool-search.js";
export { capText, renderContentBlock } from "./planner/render.js";
export type { BudgetedRunner, BudgetedText, ResultBudgetOptions, ResultStore, Truncation } from "./planner/result-budget.js";
export { budgetResult, createResultBudget, createResultStore, READ_RESULT_SPEC, readResultPage } from "./planner/result-budget.js";
export type { TokenAccount, TokenAttribution } from "./planner/token-account.js";
export { createTokenAccount } from "./planner/token-account.js";
export { specVisibleToModel, visibleToModel } from "./planner/visibility.js";
