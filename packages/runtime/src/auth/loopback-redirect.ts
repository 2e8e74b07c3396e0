/**
 * The interactive step for native apps and CLIs (RFC 8252): a one-route HTTP server on 127.0.0.1
 * receives the authorization redirect. `open(url)` shows the authorization URL to the user (e.g.
 * opens a browser); the handler resolves with the redirect's code, state and iss. Node only.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthorizationResponse } from "./oauth-options.js";
import { OAuthError } from "./oauth-util.js";

/** Options for `startLoopbackRedirect`. */
export interface LoopbackRedirectOptions {
  /** Shows `url` to the user. Called once per authorization. */
  readonly open: (url: string) => void | Promise<void>;
  /** Port on 127.0.0.1; default 0 (any free port). */
  readonly port?: number;
  /** Callback path. Default "/callback". */
  readonly path?: string;
}

/** A running loopback redirect receiver. */
export interface LoopbackRedirect {
  /** Use as `redirectUri` in `createOAuthProvider`. */
  readonly redirectUri: string;
  /** Use as `authorizationHandler` in `createOAuthProvider`. */
  authorizationHandler(url: string): Promise<AuthorizationResponse>;
  close(): Promise<void>;
}

const PAGE = "<!doctype html><title>Authorized</title><p>Authorization finished. You can close this window.</p>";

/** Starts the receiver on 127.0.0.1. One authorization is pending at a time; a new one supersedes it. */
export async function startLoopbackRedirect(options: LoopbackRedirectOptions): Promise<LoopbackRedirect> {
  const path = options.path ?? "/callback";
  let pending: { resolve: (r: AuthorizationResponse) => void; reject: (e: Error) => void } | undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    const waiting = pending;
    pending = undefined;
    if (!waiting) {
      res.writeHead(400, { "content-type": "text/plain" }).end("No authorization is pending.");
      return;
    }
    const q = url.searchParams;
    const error = q.get("error");
    const code = q.get("code");
    if (error || !code) {
      res.writeHead(400, { "content-type": "text/plain" }).end("Authorization failed. You can close this window.");
      const description = q.get("error_description");
      waiting.reject(
        new OAuthError(
          "authorization_failed",
          `authorization refused: ${error ?? "no code"}${description ? `: ${description.slice(0, 200)}` : ""}`,
        ),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    const state = q.get("state");
    const iss = q.get("iss");
    waiting.resolve({ code, ...(state !== null ? { state } : {}), ...(iss !== null ? { iss } : {}) });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${path}`,
    authorizationHandler(url) {
      // A newer authorization supersedes an abandoned one (e.g. after the provider's deadline).
      pending?.reject(new OAuthError("authorization_failed", "superseded by a newer authorization"));
      const answer = new Promise<AuthorizationResponse>((resolve, reject) => {
        pending = { resolve, reject };
      });
      Promise.resolve()
        .then(() => options.open(url))
        .catch((error: unknown) => {
          const waiting = pending;
          pending = undefined;
          waiting?.reject(
            new OAuthError("authorization_failed", `could not open the authorization URL: ${(error as Error)?.message ?? String(error)}`),
          );
        });
      return answer;
    },
    close() {
      pending?.reject(new OAuthError("authorization_failed", "the loopback redirect receiver was closed"));
      pending = undefined;
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
