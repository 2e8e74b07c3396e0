/**
 * `@toolwright/code-mode`: typed code mode (issue 27). The sandbox, the host-call bridge and the
 * type checker live here so `@toolwright/runtime` stays zero-dependency.
 * @packageDocumentation
 */
export {};
