/**
 * The conformance server built from its generated scaffold (gen/servers/toolwright-conformance,
 * generated from scaffold-design.ts): the same handlers as conformance-server.ts, bound to the
 * typed handler interface by each tool's generated method name. Inputs are validated by the
 * precompiled validators before a handler runs.
 */
import { camelName } from "../../../packages/codegen/src/emit/names.js";
import type { ToolServer } from "../../../packages/runtime/src/server.js";
import { handlers, listeners } from "./conformance-server.js";
import { prompts, resources, resourceTemplates, skills } from "./conformance-surface.js";
import { conformanceServer } from "./design.js";
import { createToolwrightConformanceServer, type ToolwrightConformanceServerHandlers } from "./gen/servers/toolwright-conformance/index.js";

/** Creates the conformance server through the generated `createToolwrightConformanceServer`. */
export function createScaffoldedConformanceServer(): ToolServer {
  const typed: { [method: string]: unknown } = {};
  for (const tool of conformanceServer.tools) {
    if (!handlers[tool.name]) throw new Error(`no handler for tool "${tool.name}"`);
    typed[camelName(tool.name)] = handlers[tool.name];
  }
  // Resources, templates, prompts and skills are runtime definitions passed through the scaffold's options.
  listeners.server = createToolwrightConformanceServer(typed as unknown as ToolwrightConformanceServerHandlers, {
    resources,
    resourceTemplates,
    prompts,
    skills,
  });
  return listeners.server;
}
