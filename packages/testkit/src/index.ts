/**
 * `@toolwright/testkit`: test MCP agents offline (issue 29). Cassettes record real sessions and
 * replay them with no process and no network; mocks generated from the lock answer in memory, over
 * stdio or over streamable HTTP; faults are injected by tool and call number.
 * @packageDocumentation
 */

/** The cassette format version this kit writes and reads. */
export const CASSETTE_FORMAT = 1;
