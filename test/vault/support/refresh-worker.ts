/**
 * A worker process for the cross-process refresh test: opens the vault, makes PROVIDERS callers
 * per principal (each its own OAuth provider, as separate requests or pooled connections would),
 * sends `{ ready: true }` over the fork's IPC channel, waits for a message (so every worker starts
 * at the same moment), then makes CALLS concurrent `whoami` calls per caller and sends `{ results }`.
 * Env: TW_DB_URL, TW_SCHEMA, TW_KEY (base64), TW_MCP_URL, TW_PRINCIPALS (comma-separated),
 * TW_PROVIDERS, TW_CALLS; optional TW_LOCK_CONNECTIONS (the vault's refresh-lock connections),
 * TW_CLIENT_METADATA_URL (the providers' CIMD URL) and TW_REGISTER_LOCK=off, which hands the providers
 * the vault's store without `registerExclusive` (the fault the registration test injects).
 */
import { createOAuthProvider, type TokenStore } from "@toolwright/runtime/auth";
import { createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { createPostgresVault } from "@toolwright/vault";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`refresh-worker: ${name} is not set`);
  return value;
};

interface Outcome {
  readonly principal: string;
  readonly ok: boolean;
  readonly text?: string;
  readonly kind?: string;
}

async function main(): Promise<void> {
  const url = env("TW_MCP_URL");
  const vault = await createPostgresVault({
    connectionString: env("TW_DB_URL"),
    schema: env("TW_SCHEMA"),
    keys: [{ id: "k1", key: env("TW_KEY") }],
    ...(process.env.TW_LOCK_CONNECTIONS ? { lockConnections: Number(process.env.TW_LOCK_CONNECTIONS) } : {}),
  });
  const storeOf = (principal: string): TokenStore => {
    const store = vault.tokenStore(principal);
    if (process.env.TW_REGISTER_LOCK !== "off") return store;
    const { registerExclusive: _dropped, ...withoutLock } = store;
    return withoutLock;
  };
  const cimd = process.env.TW_CLIENT_METADATA_URL;
  const callers: { principal: string; caller: HttpCaller }[] = [];
  for (const principal of env("TW_PRINCIPALS").split(",")) {
    for (let i = 0; i < Number(env("TW_PROVIDERS")); i++) {
      const auth = createOAuthProvider({
        serverUrl: url,
        store: storeOf(principal),
        ...(cimd ? { clientMetadataUrl: cimd } : {}),
        redirectUri: "http://127.0.0.1:1/callback",
        authorizationHandler: async () => {
          throw new Error("the user is not present");
        },
      });
      const caller = createHttpCaller({
        url,
        era: "legacy",
        auth,
        headers: { "x-principal": principal },
        notificationStream: false,
        timeoutMs: 30_000,
      });
      callers.push({ principal, caller });
    }
  }
  const send = (message: unknown) =>
    new Promise<void>((resolve) => (process.send as NonNullable<typeof process.send>)(message, () => resolve()));
  await send({ ready: true });
  await new Promise<void>((resolve) => process.once("message", () => resolve()));
  const calls = Number(env("TW_CALLS"));
  const results = await Promise.all(
    callers.flatMap(({ principal, caller }) =>
      Array.from({ length: calls }, async (): Promise<Outcome> => {
        const r = await caller.callTool({ name: "whoami", arguments: {} });
        if (!r.ok) return { principal, ok: false, kind: r.failure.kind };
        const first = r.value.content[0];
        return { principal, ok: true, ...(first?.type === "text" ? { text: first.text } : {}) };
      }),
    ),
  );
  await send({ results });
  await Promise.all(callers.map((c) => c.caller.close()));
  await vault.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`refresh-worker: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
