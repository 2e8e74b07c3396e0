/**
 * A token store kept in one JSON file (Node only), so a CLI agent does not re-authorize on every
 * run. The file is written atomically (temp file + rename) with mode 0600; DPoP-bound tokens are
 * not kept, because their key lives only in memory.
 */
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { createKeyedLock, inProcessRegistration, type OAuthClientInfo, type OAuthTokens, type TokenStore } from "./token-store.js";

/** The file: tokens by resource (the MCP server URL), registered clients by issuer (client ids are per AS). */
interface FileShape {
  tokens: { [resource: string]: OAuthTokens };
  clients: { [issuer: string]: OAuthClientInfo };
}

/** Creates a token store backed by `path`. A missing file is an empty store; a corrupt one is an error naming the file. */
export function createFileTokenStore(path: string): TokenStore {
  let loading: Promise<FileShape> | undefined;
  let writing: Promise<void> = Promise.resolve();

  /** Reads the file once; every caller shares the same in-memory state (no lost updates). */
  function read(): Promise<FileShape> {
    loading ??= readOnce().catch((error: unknown) => {
      loading = undefined; // a fixed file can be read later
      throw error;
    });
    return loading;
  }

  async function readOnce(): Promise<FileShape> {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { tokens: {}, clients: {} };
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as Partial<FileShape>;
      return { tokens: parsed.tokens ?? {}, clients: parsed.clients ?? {} };
    } catch {
      throw new Error(`token store ${path} is not valid JSON`);
    }
  }

  function persist(state: FileShape): Promise<void> {
    // Writes are serialized so an older state never lands after a newer one.
    writing = writing
      .catch(() => {})
      .then(async () => {
        await mkdir(dirname(path), { recursive: true, mode: 0o700 });
        const temp = `${path}.${process.pid}.tmp`;
        await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
        // writeFile's mode applies only when it creates the file (and the umask still applies): a
        // temp file left by a crashed run keeps its old mode, so it is set again explicitly.
        await chmod(temp, 0o600);
        // rename is atomic on one file system: a reader sees the old tokens or the new ones.
        await rename(temp, path);
      });
    return writing;
  }

  const store: TokenStore = {
    async loadTokens(resource) {
      return (await read()).tokens[resource];
    },
    async saveTokens(resource, tokens) {
      const state = await read();
      // A DPoP token without its in-memory key is useless to the next process: not written at all.
      if (tokens && tokens.tokenType !== "DPoP") state.tokens[resource] = tokens;
      else delete state.tokens[resource];
      await persist(state);
    },
    async loadClient(issuer) {
      return (await read()).clients[issuer];
    },
    async saveClient(issuer, client) {
      const state = await read();
      if (client) state.clients[issuer] = client;
      else delete state.clients[issuer];
      await persist(state);
    },
  };
  // One process owns the file: an in-process lock per issuer is enough to register once.
  return { ...store, registerExclusive: inProcessRegistration(store, createKeyedLock()) };
}
