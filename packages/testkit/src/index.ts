/**
 * `@toolwright/testkit`: test MCP agents offline (issue 29). Cassettes record real sessions and
 * replay them with no process and no network; mocks generated from the lock answer in memory, over
 * stdio or over streamable HTTP; faults are injected by tool and call number.
 * @packageDocumentation
 */

/** The cassette format version this kit writes and reads. */
export const CASSETTE_FORMAT = 1;

// ── Mocks from the lock (generated `create<Toolset>Mock`, run by `startMock`) ──────────────────
export type { MockFailure, MockServer, MockServerOptions } from "./mock/mock-server.js";
export { checkAnswer, createMockServer, describeIssue } from "./mock/mock-server.js";
export type { MockAnswerSource, MockCall, MockCallInfo, MockDefinition, MockInterceptor, MockToolDefinition } from "./mock/types.js";
export { type ServedMock, type ServeMockOptions, serveMock } from "./serve/serve-mock.js";
export type { MockTransport, RunningMock, StartMockOptions } from "./serve/start-mock.js";
export { startMock, toolwrightBin } from "./serve/start-mock.js";
