/**
 * A minimal AsyncLocalStorage context manager for `@opentelemetry/api`, so `context.with` really
 * propagates in tests (the API alone has only a no-op manager, and no SDK is installed).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { type Context, type ContextManager, ROOT_CONTEXT } from "@opentelemetry/api";

/** Creates the context manager; register it with `context.setGlobalContextManager`. */
export function alsContextManager(): ContextManager {
  const als = new AsyncLocalStorage<Context>();
  const manager: ContextManager = {
    active: () => als.getStore() ?? ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => als.run(ctx, () => fn.call(thisArg, ...args)),
    bind: (_ctx, target) => target,
    enable: () => manager,
    disable: () => {
      als.disable();
      return manager;
    },
  };
  return manager;
}
