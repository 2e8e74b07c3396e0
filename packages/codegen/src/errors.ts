/**
 * Design errors: everything wrong with a design is reported as a `DesignError` that names the
 * design file and, where known, the toolset and the tool. They are raised before anything is written.
 */

/** Where in a design a problem was found. */
export interface DesignLocation {
  /** Design file, relative to the working directory. */
  readonly file: string;
  readonly toolset?: string;
  readonly tool?: string;
  /** Agent or server name, when the problem is there. */
  readonly agent?: string;
  readonly server?: string;
  /** The tool's schema the problem is in, when it is in one. */
  readonly schema?: "input" | "output";
  /** JSON pointer of the node inside that schema (`/properties/order/properties/sku`), when known. */
  readonly pointer?: string;
}

/** A problem in a design file. The CLI prints the message and exits with code 2. */
export class DesignError extends Error {
  override readonly name = "DesignError";
  readonly location: DesignLocation;
  readonly problem: string;

  constructor(location: DesignLocation, problem: string, options?: { readonly cause?: unknown }) {
    super(`${describeLocation(location)}: ${problem}`, options);
    this.location = location;
    this.problem = problem;
  }
}

/** `design.ts toolset "x" tool "y"`. */
export function describeLocation(location: DesignLocation): string {
  let out = location.file;
  if (location.server !== undefined) out += ` server ${JSON.stringify(location.server)}`;
  if (location.agent !== undefined) out += ` agent ${JSON.stringify(location.agent)}`;
  if (location.toolset !== undefined) out += ` toolset ${JSON.stringify(location.toolset)}`;
  if (location.tool !== undefined) out += ` tool ${JSON.stringify(location.tool)}`;
  return out;
}

/** True when `error` is a design error. */
export function isDesignError(error: unknown): error is DesignError {
  return error instanceof DesignError;
}

/**
 * A problem with a file the CLI reads or would write outside a design (an `mcp.json`, a design
 * `init` or `add` would overwrite): names the file, and the server when there is one. Exit code 2.
 */
export class FileError extends Error {
  override readonly name = "FileError";
  constructor(
    readonly file: string,
    readonly problem: string,
    readonly server?: string,
  ) {
    super(`${file}${server === undefined ? "" : ` server ${JSON.stringify(server)}`}: ${problem}`);
  }
}
