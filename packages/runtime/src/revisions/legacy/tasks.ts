/** Tasks as the legacy family's 2025-11-25 version has them (experimental, client-augmented). */

/** True when a 2025-11-25 server accepts task-augmented `tools/call`. */
export function serverRunsToolTasks(capabilities: { readonly [key: string]: unknown }): boolean {
  const tasks = capabilities.tasks as { requests?: { tools?: { call?: unknown } } } | undefined;
  return tasks?.requests?.tools?.call !== undefined;
}
