/** The messages between the many-users driver and its worker processes, and the workers' configuration. */

/** How a worker holds credentials: the vault, a per-process memory store, or one static token. */
export type StoreMode = "vault" | "memory" | "static";

/** What a worker is told at start (as JSON in `TW_MANY_USERS`). */
export interface WorkerConfig {
  readonly mode: StoreMode;
  /** The MCP servers, by name. */
  readonly servers: readonly { readonly name: string; readonly url: string }[];
  readonly databaseUrl?: string;
  /** The application's vault key, base64 (a real deployment reads it from its secret manager). */
  readonly vaultKey?: string;
  /** memory mode: JSON file of the seeded grants, keyed "principal serverUrl". */
  readonly seedFile?: string;
  /** Seconds before expiry at which a token is refreshed. */
  readonly refreshSkewSeconds?: number;
  /** static mode: the one bearer token. */
  readonly staticToken?: string;
}

/** Driver to worker: make one call for `principal` at `server`. */
export interface CallMessage {
  readonly id: number;
  readonly principal: string;
  /** The server's name in the workers' MCP config. */
  readonly server: string;
}

/** Worker to driver: how the call ended and how long it took inside the worker. */
export interface DoneMessage {
  readonly done: number;
  readonly ok: boolean;
  readonly ms: number;
  readonly failure?: string;
}
