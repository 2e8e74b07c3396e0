/** Names of the server section's measures, shared by bench/sections/server.ts and bench/lib/targets.ts. */

/** Measure names of the server section; `calls`, `p50` and `p99` take the number in flight. */
export const SERVER_MEASURES = {
  calls: (n: number) => `echo x${n} calls/s`,
  p50: (n: number) => `echo x${n} p50`,
  p99: (n: number) => `echo x${n} p99`,
  order: "order payload x64 calls/s",
  cpu: "echo x64 server CPU per call",
  orderCpu: "order payload x64 server CPU per call",
  orderOverEcho: "order payload x64 / own echo x64",
  mixed: "mixed 1 list : 9 calls, 50 sessions, ops/s",
  cold: "cold launch to first tools/list",
  session: "RSS per open session",
} as const;
