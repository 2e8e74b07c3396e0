/**
 * Multi-round-trip requests (2026-07-28, SEP-2322) for handlers written as plain `await`s.
 * A handler that asks the client for input (`ctx.input` / `ctx.request`) is replayed: on the first
 * round every input it asks for is missing, so the call answers `input_required` with those
 * requests; the client retries with `inputResponses`, and the handler runs again with the answers
 * at hand. Answers from earlier rounds travel in `requestState`, sealed with an HMAC so a client
 * cannot alter them.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { RpcHandlerError } from "../protocol/rpc-peer.js";

/** Seals and opens `requestState` values. */
export interface StateCodec {
  seal(payload: unknown): string;
  /** The payload, or undefined when the state was altered or is not ours. */
  open(state: string): unknown;
}

/** Creates a codec keyed by `secret` (random per process when absent). */
export function createStateCodec(secret: Uint8Array = randomBytes(32)): StateCodec {
  const mac = (data: string) => createHmac("sha256", secret).update(data).digest();
  return {
    seal(payload) {
      const data = Buffer.from(JSON.stringify(payload)).toString("base64url");
      return `${data}.${mac(data).toString("base64url")}`;
    },
    open(state) {
      const dot = state.lastIndexOf(".");
      if (dot <= 0) return undefined;
      const data = state.slice(0, dot);
      const given = Buffer.from(state.slice(dot + 1), "base64url");
      const expected = mac(data);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        return JSON.parse(Buffer.from(data, "base64url").toString("utf8"));
      } catch {
        return undefined;
      }
    },
  };
}

interface SealedState {
  readonly tool: string;
  readonly args: string;
  readonly answers: { readonly [key: string]: unknown };
}

/** One input request a handler is waiting for. */
export interface InputRequest {
  readonly method: string;
  readonly params?: { readonly [key: string]: unknown };
}

/** The inputs of one round: answers known so far, and what the handler still waits for. */
export interface InputRound {
  /** Resolves with the answer for `key`, or records the request and never resolves. */
  ask(key: string, request: InputRequest): Promise<unknown>;
  /** Resolves once the handler asked for something not yet answered (checked after the current tick). */
  readonly blocked: Promise<void>;
  /** The `input_required` result for the inputs still missing. */
  result(): { [key: string]: unknown };
}

function isObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function digest(value: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(value ?? {}))
    .digest("base64url");
}

/**
 * Opens the round a `tools/call` is in, from its `requestState` and `inputResponses`. Throws
 * -32602 when the state was altered, belongs to another tool or arguments, or the responses are
 * not an object.
 */
export function openRound(codec: StateCodec, tool: string, params: { readonly [key: string]: unknown }): InputRound {
  const argsDigest = digest(params.arguments);
  // Keys come from the client: "__proto__" must stay an answer, not become the prototype.
  let answers: { [key: string]: unknown } = Object.create(null);
  if (params.requestState !== undefined) {
    const sealed = typeof params.requestState === "string" ? (codec.open(params.requestState) as SealedState | undefined) : undefined;
    if (!isObject(sealed) || sealed.tool !== tool || sealed.args !== argsDigest || !isObject(sealed.answers)) {
      throw new RpcHandlerError(-32602, "Invalid params: requestState failed its integrity check");
    }
    answers = Object.assign(Object.create(null), sealed.answers);
  }
  if (params.inputResponses !== undefined) {
    if (!isObject(params.inputResponses))
      throw new RpcHandlerError(-32602, "Invalid params: inputResponses must be an object keyed by input request");
    for (const [key, value] of Object.entries(params.inputResponses)) {
      if (!isObject(value)) throw new RpcHandlerError(-32602, `Invalid params: inputResponses.${key} must be a result object`);
      answers[key] = value;
    }
  }
  const missing = new Map<string, InputRequest>();
  // Only the answers the handler used go back into the next state; extra keys are ignored.
  const used: { [key: string]: unknown } = Object.create(null);
  let signal: () => void = () => {};
  const blocked = new Promise<void>((resolve) => {
    signal = resolve;
  });
  return {
    blocked,
    ask(key, request) {
      if (Object.hasOwn(answers, key)) {
        used[key] = answers[key];
        return Promise.resolve(answers[key]);
      }
      if (missing.size === 0) setImmediate(signal);
      missing.set(key, request);
      return new Promise<never>(() => {});
    },
    result() {
      const inputRequests: { [key: string]: unknown } = Object.create(null);
      for (const [key, request] of missing)
        inputRequests[key] = { method: request.method, ...(request.params ? { params: request.params } : {}) };
      const state: SealedState = { tool, args: argsDigest, answers: used };
      return { resultType: "input_required", inputRequests, requestState: codec.seal(state) };
    },
  };
}
