/**
 * The code-mode API of one toolset as `toolwright gen` prints it into `<toolset>/code-mode.gen.ts`
 * (`<toolset>CodeMode`). Read structurally: the generated module imports nothing, so it can be
 * passed straight to `createTypeChecker` (and to the sandbox and the adapters).
 */

/** One line of a toolset's index: what `search` shows for a tool. */
export interface CodeModeIndexEntry {
  /** Wire name: `get-sum`. */
  readonly tool: string;
  /** Function name in the namespace: `getSum`. */
  readonly name: string;
  /** `everything.getSum(input: GetSumPayload): Promise<GetSumResult>`. */
  readonly signature: string;
  /** First sentence of the description, on one line; empty when there is none. */
  readonly summary: string;
  /** The text shown to a model: the signature, then `// summary`. */
  readonly line: string;
  /** o200k tokens of `line`, counted at gen time. */
  readonly tokens: number;
}

/** A toolset's code-mode API (the `<toolset>CodeMode` export of `code-mode.gen.ts`). */
export interface CodeModeApi {
  /** The toolset's declared name. */
  readonly toolset: string;
  /** The global namespace its tools are called through: `everything.getSum(...)`. */
  readonly namespace: string;
  /** `ToolError` and its kinds: the same text in every generated module. */
  readonly prelude: string;
  readonly preludeTokens: number;
  /** The whole toolset as one `declare namespace`. */
  readonly declarations: string;
  /** o200k tokens of `declarations`. */
  readonly tokens: number;
  /** One entry per tool, sorted by wire name. */
  readonly index: readonly CodeModeIndexEntry[];
  /** Function name → the tool's self-contained declaration and its tokens. Read with `Object.hasOwn`. */
  readonly details: { readonly [name: string]: { readonly text: string; readonly tokens: number } };
  /** Function name → wire name. Read with `Object.hasOwn`. */
  readonly bindings: { readonly [name: string]: string };
}

/** A namespace the checker can declare: an ASCII identifier (the generator never prints another). */
const NAMESPACE = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Checks a list of APIs before any declaration is compiled: each is an object with a namespace
 * identifier and declaration text, no namespace is used twice, and every prelude is the same text
 * (they come from one generator version). Throws an error naming the toolset and the field.
 */
export function checkApis(apis: readonly CodeModeApi[]): void {
  if (!Array.isArray(apis)) throw new TypeError("code mode: the APIs must be an array of generated `<toolset>CodeMode` objects");
  const seen = new Map<string, string>();
  apis.forEach((api, i) => {
    const at = `code mode: API ${i}${typeof api?.toolset === "string" ? ` (toolset ${JSON.stringify(api.toolset)})` : ""}`;
    if (typeof api !== "object" || api === null) throw new TypeError(`${at} is not an object`);
    if (typeof api.namespace !== "string" || !NAMESPACE.test(api.namespace))
      throw new TypeError(`${at}: namespace must be an identifier, got ${JSON.stringify(api.namespace)}`);
    if (typeof api.declarations !== "string") throw new TypeError(`${at}: declarations must be a string`);
    if (typeof api.prelude !== "string") throw new TypeError(`${at}: prelude must be a string`);
    const other = seen.get(api.namespace);
    if (other !== undefined) throw new TypeError(`${at}: namespace ${JSON.stringify(api.namespace)} is already used by toolset ${other}`);
    seen.set(api.namespace, JSON.stringify(api.toolset));
    if (api.prelude !== apis[0]!.prelude)
      throw new TypeError(
        `${at}: its prelude differs from toolset ${JSON.stringify(apis[0]!.toolset)}'s; regenerate both with one toolwright version`,
      );
  });
}
