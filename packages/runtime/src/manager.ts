/**
 * @toolwright/runtime/manager: the Node-only multi-server manager, `mcp.json` loading and watching,
 * the `mcp_register` tool, and `connectFromConfig`/`discoverServers` for embedders.
 * @packageDocumentation
 */

export type { ApprovalSplit, ApprovalStore, ApprovalStoreOptions, HeldTool, NewToolPolicy } from "./manager/approval-store.js";
export { approvalsPathFor, createApprovalStore, readApprovals, splitByApproval } from "./manager/approval-store.js";
export type {
  ClientFactoryOptions,
  HttpClientFactory,
  HttpClientOptions,
  ServerClient,
} from "./manager/client-factory.js";
export { createServerClient } from "./manager/client-factory.js";
export type { LoadMcpConfigOptions, OnMissingVariable, ParsedConfigFile, ResolveContext } from "./manager/config-load.js";
export {
  configFiles,
  expandVariables,
  globalConfigDir,
  loadMcpConfig,
  McpConfigError,
  parseConfigText,
  parseMcpConfig,
  projectConfigPath,
  resolveServerEntry,
} from "./manager/config-load.js";
export { type FromConfigSchema, MCP_CONFIG_SCHEMA, type RawServerEntry } from "./manager/config-schema.js";
export type {
  CollisionPolicy,
  HttpServerConfig,
  Lifecycle,
  McpConfig,
  ProtocolEra,
  RawServerConfig,
  ServerCommon,
  ServerConfig,
  ServerLimits,
  ServerType,
  StdioServerConfig,
} from "./manager/config-types.js";
export type { ConfigIssue } from "./manager/config-validate.js";
export { validateConfigFile, validateServerEntry } from "./manager/config-validate.js";
export type { ConfigWatcher, WatchMcpConfigOptions } from "./manager/config-watcher.js";
export { watchManagerConfig, watchMcpConfig } from "./manager/config-watcher.js";
export type { WriteEntryOptions } from "./manager/config-write.js";
export { detectIndent, writeServerEntry } from "./manager/config-write.js";
export type { ConnectOutcome, DiscoveredServer } from "./manager/embed.js";
export { connectFromConfig, discoverServers } from "./manager/embed.js";
export type { JsoncText } from "./manager/jsonc.js";
export { JsoncError, parseJsonc, readJsonc, visibleText } from "./manager/jsonc.js";
export { createMcpManager } from "./manager/manager.js";
export type {
  ApplySummary,
  ApprovalHook,
  CallApprovalRequest,
  McpManager,
  McpManagerOptions,
  PrincipalManager,
  PrincipalOptions,
} from "./manager/manager-types.js";
export type { McpRegisterConfirm, McpRegisterTool, McpRegisterToolOptions, RegisterOutcome } from "./manager/mcp-register.js";
export { createMcpRegisterTool, MCP_REGISTER_DESCRIPTOR, MCP_REGISTER_TOOL } from "./manager/mcp-register.js";
export type { NameChoice } from "./manager/names.js";
export { chooseExposedName, MAX_PROVIDER_NAME, providerSafe, uniqueName } from "./manager/names.js";
export type { RiskLevel, ToolRisk } from "./manager/risk.js";
export { riskOf } from "./manager/risk.js";
export type { SafeWriteOptions } from "./manager/safe-write.js";
export { checkWritePath, UnsafeWriteError, writeFileSafe } from "./manager/safe-write.js";
export type { ConnectDurations, ServerState, ServerStatus } from "./manager/server-slot.js";
export type { ManagedList, ManagedPrompt, ManagedResource, ManagedResourceTemplate, ManagerSurface } from "./manager/surface.js";
export type { ManagedTool, ServerToolPolicy, ToolsDiff } from "./manager/tool-registry.js";
export { isToolVisible, matchesPattern, runtimeSpecOf } from "./manager/tool-registry.js";
export type { ArgumentValidation, ArgumentValidator, SchemaCompiler, ValidationMode } from "./manager/validation.js";
export { createArgumentValidator } from "./manager/validation.js";
