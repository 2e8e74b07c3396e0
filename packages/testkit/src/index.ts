/**
 * `@toolwright/testkit`: test MCP agents offline (issue 29). Cassettes record real sessions and
 * replay them with no process and no network; mocks generated from the lock answer in memory, over
 * stdio or over streamable HTTP; faults are injected by tool and call number.
 * @packageDocumentation
 */

// ── Cassettes: record and replay ─────────────────────────────────────────────────────────────────
export type { Cassette, CassetteEvent, CassetteHeader, CassetteTransport, JsonObject } from "./cassette/format.js";
export { CASSETTE_FORMAT, CassetteError, parseCassette, printCassette, stableJson } from "./cassette/format.js";
export type { NormaliseOptions, Normaliser } from "./cassette/normalise.js";
export { createNormaliser } from "./cassette/normalise.js";
export type { Recording, RecordingOptions, RecordTarget } from "./cassette/record.js";
export { createRecordingCaller } from "./cassette/record.js";
// ── Faults by tool and call number (on any host, in handlers, or in front of an HTTP server) ──
export type { FaultHostOptions, FaultyHost } from "./faults/host.js";
export { BROKEN_OUTPUT, FAULT_INPUT_KEY, withFaults } from "./faults/host.js";
export type { FaultProxy, FaultProxyOptions } from "./faults/http-front.js";
export { startFaultProxy } from "./faults/http-front.js";
export type { Fault, FaultKind, FaultPlan, FaultRule, FaultSchedule, InjectedFault } from "./faults/plan.js";
export { checkFaultPlan, createFaultSchedule } from "./faults/plan.js";
export type { FaultableTool, FaultyTools, ToolFaultOptions } from "./faults/tools.js";
export { withToolFaults } from "./faults/tools.js";
// ── Mocks from the lock (generated `create<Toolset>Mock`, run by `startMock`) ──────────────────
export type { MockFailure, MockServer, MockServerOptions } from "./mock/mock-server.js";
export { checkAnswer, createMockServer, describeIssue } from "./mock/mock-server.js";
export type { MockResult } from "./mock/result.js";
export { isMockResult, MOCK_RESULT, result } from "./mock/result.js";
export type {
  MockAnswerSource,
  MockCall,
  MockCallInfo,
  MockCallMeta,
  MockDefinition,
  MockInterceptor,
  MockToolDefinition,
} from "./mock/types.js";
export type { ReplayHost, ReplayOptions } from "./replay/host.js";
export { createReplayHost, NOT_RECORDED_CODE } from "./replay/host.js";
export type { ReplayCaller, ReplayCallerOptions } from "./replay/replay-caller.js";
export { createReplayCaller, recordedEra } from "./replay/replay-caller.js";
export type { VerifyDifference, VerifyOptions, VerifyReport } from "./replay/verify.js";
export { verifyCassette } from "./replay/verify.js";
export { type ServedMock, type ServeMockOptions, serveMock } from "./serve/serve-mock.js";
export type { MockTransport, RunningMock, StartMockOptions } from "./serve/start-mock.js";
export { startMock, toolwrightBin } from "./serve/start-mock.js";
