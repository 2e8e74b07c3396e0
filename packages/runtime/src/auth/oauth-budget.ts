/**
 * How many times a provider may answer challenges before it gives up. A server that rejects
 * every token (a misconfigured audience, a revoked client) would otherwise send the user through
 * the browser flow forever, once per request.
 */
import { OAuthError, scopeList } from "./oauth-util.js";

/** The retry accounting of one provider. */
export interface ChallengeBudget {
  /**
   * Counts one more authorization, or returns the `retry_limit` error that refuses it: after
   * `maxAttempts` in a row without a successful request, or a second step-up for the same scope
   * set (the server still says insufficient_scope after we asked for exactly what it named).
   */
  admit(stepUp: boolean, challengeScope: string | undefined): OAuthError | undefined;
  /** A token was handed out a second time without a challenge in between: the last authorization worked. */
  succeeded(): void;
}

/** Creates the budget: `maxAttempts` authorizations in a row, one step-up per distinct scope set. */
export function createChallengeBudget(maxAttempts: number): ChallengeBudget {
  let attemptsInRow = 0;
  const stepUps = new Map<string, number>();
  return {
    admit(stepUp, challengeScope) {
      if (attemptsInRow >= maxAttempts) {
        return new OAuthError("retry_limit", `gave up after ${attemptsInRow} authorization attempts without a successful request`);
      }
      if (stepUp) {
        // Keyed by the sorted scope set: the same scopes in another order are the same refusal.
        const key = scopeList(challengeScope).sort().join(" ");
        const done = stepUps.get(key) ?? 0;
        if (done >= 1) return new OAuthError("retry_limit", `server still reports insufficient_scope for "${key}" after a step-up`);
        stepUps.set(key, done + 1);
      }
      attemptsInRow++;
      return undefined;
    },
    succeeded() {
      attemptsInRow = 0;
    },
  };
}
