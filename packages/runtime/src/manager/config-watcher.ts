/**
 * Live reload: watches the directories of the global and project `mcp.json` (a directory watch
 * survives editors that replace files by rename), debounces, reloads, and hands the result on.
 * A broken edit keeps the last good config and is reported.
 */
import { existsSync, type FSWatcher, unwatchFile, watch, watchFile } from "node:fs";
import { basename, dirname } from "node:path";
import { configFiles, type LoadMcpConfigOptions, loadMcpConfig } from "./config-load.js";
import type { McpConfig } from "./config-types.js";
import type { McpManager } from "./manager-types.js";

/** Options for `watchMcpConfig`. */
export interface WatchMcpConfigOptions extends LoadMcpConfigOptions {
  /** Quiet period after the last file event before reloading. Default 100 ms. */
  readonly debounceMs?: number;
  /** A reload failed (bad JSON, unset variable...); the last good config stays in force. */
  readonly onError?: (error: Error) => void;
  /** The config already in force; a reload that yields the same config is skipped. */
  readonly initial?: McpConfig;
  /** Poll interval for a file whose directory does not exist yet. Default 1000 ms. */
  readonly pollIntervalMs?: number;
}

/** A running watcher. */
export interface ConfigWatcher {
  /** Files watched: by a directory watch, or by polling while their directory does not exist. */
  readonly files: readonly string[];
  close(): void;
}

/** Watches the config files and calls `onConfig` with each good reload. */
export function watchMcpConfig(options: WatchMcpConfigOptions, onConfig: (config: McpConfig) => void | Promise<void>): ConfigWatcher {
  const files = configFiles(options);
  const watchers: FSWatcher[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let chain: Promise<void> = Promise.resolve();
  let lastText = options.initial === undefined ? undefined : JSON.stringify(options.initial);

  const reload = () => {
    timer = undefined;
    if (closed) return;
    chain = chain.then(async () => {
      if (closed) return;
      let config: McpConfig;
      try {
        config = loadMcpConfig(options);
      } catch (error) {
        options.onError?.(error as Error);
        return;
      }
      // Editors and polling often report one save as several events: skip a reload that changed nothing.
      const text = JSON.stringify(config);
      if (text === lastText) return;
      lastText = text;
      try {
        await onConfig(config);
      } catch (error) {
        options.onError?.(error as Error);
      }
    });
  };

  const schedule = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(reload, options.debounceMs ?? 100);
  };
  const polled: string[] = [];
  for (const file of files) {
    const dir = dirname(file);
    if (!existsSync(dir)) {
      // No directory to watch yet (no .toolwright/ so far): poll the path so its creation is seen.
      watchFile(file, { persistent: false, interval: options.pollIntervalMs ?? 1000 }, schedule);
      polled.push(file);
      continue;
    }
    const name = basename(file);
    const watcher = watch(dir, { persistent: false }, (_event, filename) => {
      if (filename === null || filename === name) schedule();
    });
    watcher.on("error", (error) => options.onError?.(error));
    watchers.push(watcher);
  }

  return {
    files,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
      for (const file of polled) unwatchFile(file, schedule);
    },
  };
}

/** Watches the config files and applies each good reload to `manager`; `stop()` closes the watcher. */
export function watchManagerConfig(manager: McpManager, options: WatchMcpConfigOptions): ConfigWatcher {
  const watcher = watchMcpConfig({ initial: manager.config(), ...options }, async (config) => {
    await manager.applyConfig(config);
  });
  manager.onStop(() => watcher.close());
  return watcher;
}
