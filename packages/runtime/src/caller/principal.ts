/**
 * The principal: the user (or machine) a call is made for. One agent backend serves many people,
 * and everything it keeps per person (tokens, sessions, discovery results, approvals, held results)
 * is keyed by the principal's `id`, never by its `label`. The runtime treats the id as opaque: it
 * is compared, used as a map key, and never written into telemetry, failures or logs (an id is often
 * an email address or an account number).
 */

/** Who a call is made for. */
export interface Principal {
  /** Opaque, stable and unique per user: the only key anything is partitioned by. */
  readonly id: string;
  /** For the application's own screens. Never a key, never compared, never sent anywhere by the runtime. */
  readonly label?: string;
}

/** The longest principal id accepted: ids are map keys, not documents. */
export const MAX_PRINCIPAL_ID = 512;

/**
 * The key of `principal` (its id), after checking it: a missing, empty, over-long or non-string id
 * throws a message that says what is wrong without repeating the value (it may be personal data).
 */
export function principalKey(principal: Principal): string {
  const id = (principal as { readonly id?: unknown } | null | undefined)?.id;
  if (typeof id !== "string") throw new TypeError("principal: `id` must be a string");
  if (id.length === 0) throw new TypeError("principal: `id` must not be empty");
  if (id.length > MAX_PRINCIPAL_ID) throw new TypeError(`principal: \`id\` is longer than ${MAX_PRINCIPAL_ID} characters`);
  return id;
}

/** True when `a` and `b` are the same principal (same id; labels never count). Undefined equals only undefined. */
export function samePrincipal(a: Principal | undefined, b: Principal | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.id === b.id;
}
