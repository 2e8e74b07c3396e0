/**
 * A worker that takes the vault's refresh lock for (TW_PRINCIPAL, TW_RESOURCE) and never lets go
 * (its refresh hangs, as one stuck on a dead authorization server would), after telling the parent
 * `{ locked: true }` over IPC. The test kills it with SIGKILL: the lock must end with its connection.
 */
import { createPostgresVault } from "@toolwright/vault";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`lock-holder: ${name} is not set`);
  return value;
};

const vault = await createPostgresVault({
  connectionString: env("TW_DB_URL"),
  schema: env("TW_SCHEMA"),
  keys: [{ id: "k1", key: env("TW_KEY") }],
});
const store = vault.tokenStore(env("TW_PRINCIPAL"));
await (store.refreshExclusive as NonNullable<typeof store.refreshExclusive>)(env("TW_RESOURCE"), async () => {
  process.send?.({ locked: true });
  // Held until the process is killed; the timer only keeps the event loop alive (bounded by the test's kill).
  await new Promise<never>(() => setInterval(() => undefined, 60_000));
  return undefined;
});
