/**
 * The user program of the vault product test, as a user would write it against the installed
 * packages (compiled by the project's own tsc under a strict NodeNext tsconfig). One run is one
 * phase, as separate deployments would be: `seed` stores each user's grant after their consent,
 * `call` serves both users through the many-principal manager, `rotate` re-encrypts under a new key.
 * It prints one JSON line of what it saw; the test decides what is right.
 */
export const VAULT_APP = `import { readFileSync } from "node:fs";
import type { OAuthTokens } from "@toolwright/runtime/auth";
import type { Principal } from "@toolwright/runtime/caller";
import { createMcpManager, parseMcpConfig } from "@toolwright/runtime/manager";
import { createPostgresVault, type PostgresVault, VAULT_SCHEMA_VERSION, type VaultKey } from "@toolwright/vault";

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(name + " is not set");
  return value;
}

const people: readonly Principal[] = [{ id: "alice@example.com", label: "Alice" }, { id: "bob@example.com" }];
const mcpUrl = env("MCP_URL");

interface CallReport {
  readonly ok: boolean;
  readonly echoed?: unknown;
  readonly kind?: string;
  readonly message?: string;
  readonly reauthorize: readonly string[];
}

async function seed(vault: PostgresVault): Promise<void> {
  // What an OAuth callback stores once the user consented (here handed over by the test).
  const grants = JSON.parse(readFileSync(env("GRANTS_FILE"), "utf8")) as { readonly [id: string]: OAuthTokens | undefined };
  for (const p of people) {
    const tokens = grants[p.id];
    if (tokens === undefined) throw new Error("no grant for " + p.id);
    await vault.tokenStore(p).saveTokens(mcpUrl, tokens);
  }
}

async function serve(vault: PostgresVault): Promise<{ [id: string]: CallReport[] }> {
  const config = parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: mcpUrl } } }));
  const manager = createMcpManager(config, {
    principals: {
      maxPrincipals: 10,
      tokenStoreFor: (principal) => vault.tokenStore(principal),
      oauthFor: () => ({ clientId: env("CLIENT_ID"), tokenEndpointAuthMethod: "none", redirectUri: "http://127.0.0.1:9/callback", dpop: false }),
    },
  });
  const report: { [id: string]: CallReport[] } = {};
  try {
    // Both users at once, twice each: a mix-up of connections or tokens would show here.
    await Promise.all(
      [...people, ...people].map(async (p) => {
        const mine = await manager.forPrincipal(p);
        const result = await mine.callTool("crm.whoami", { principal: p.id }, { timeoutMs: 60_000 });
        const reauthorize = await vault.needsReauthorization(p);
        const entry: CallReport = result.ok
          ? { ok: true, echoed: result.structured, reauthorize }
          : { ok: false, kind: result.failure.kind, message: result.failure.message, reauthorize };
        (report[p.id] ??= []).push(entry);
      }),
    );
  } finally {
    await manager.stop();
  }
  return report;
}

const phase = process.argv[2];
const keys = JSON.parse(env("VAULT_KEYS")) as VaultKey[];
// Opening the vault runs its migrations.
const vault = await createPostgresVault({ connectionString: env("DATABASE_URL"), schema: "app_vault", keys });
try {
  const out: { [key: string]: unknown } = { phase, schemaVersion: VAULT_SCHEMA_VERSION };
  if (phase === "seed") await seed(vault);
  else if (phase === "rotate") out.rotation = await vault.rotate();
  else if (phase === "call") out.calls = await serve(vault);
  else throw new Error("unknown phase " + String(phase));
  console.log(JSON.stringify(out));
} finally {
  await vault.close();
}
`;
