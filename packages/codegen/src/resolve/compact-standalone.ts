/**
 * Shrinks ajv standalone output without changing what it accepts or the errors the runtime reads
 * (instancePath, keyword, params, message): unused schema constants go, and ajv's 7-line error
 * push becomes one call of a module-local helper (the commonest errors get a builder of their own).
 */

const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
/** ajv's error push: `const errN = {...};` then append it to vErrors (null at first). */
const PUSH = /^const (err\d+) = (\{.*\});\nif\(vErrors === null\)\{\nvErrors = \[\1\];\n\}\nelse \{\nvErrors\.push\(\1\);\n\}\n/gm;
/** An error object's instance path, then its schemaPath, which the runtime's ValidatorError lacks. */
const HEAD = new RegExp(String.raw`^\{instancePath(?::([^,]*))?,schemaPath:${STRING},`);
const REQUIRED = new RegExp(
  String.raw`^keyword:"required",params:\{missingProperty: (${STRING})\},message:"must have required property '"\+\1\+"'"\}$`,
);
const TYPE = /^keyword:"type",params:\{type: "([a-z,]+)"\},message:"must be \1"\}$/;

const HELPERS = {
  pushError: "function pushError(list, error) {\nif (list === null) return [error];\nlist.push(error);\nreturn list;\n}\n",
  missing: `function missing(list, instancePath, name) {\nreturn pushError(list, {instancePath,keyword:"required",params:{missingProperty: name},message:"must have required property '"+name+"'"});\n}\n`,
  wrongType: `function wrongType(list, instancePath, type) {\nreturn pushError(list, {instancePath,keyword:"type",params:{type},message:"must be "+type});\n}\n`,
} as const;

/** The compacted module source. */
export function compactStandalone(code: string): string {
  // A constant is kept when its name occurs outside its own line. Counted in one pass: testing the
  // whole module again per constant made this quadratic (a 100-tool toolset has ~130 of them).
  const uses = new Map<string, number>();
  for (const m of code.matchAll(/\bschema\d+\b/g)) uses.set(m[0], (uses.get(m[0]) ?? 0) + 1);
  const inLine = (line: string, name: string) => line.match(new RegExp(`\\b${name}\\b`, "g"))?.length ?? 0;
  let out = code.replace(/^const (schema\d+) = .*;\n/gm, (line, name: string) => ((uses.get(name) ?? 0) > inLine(line, name) ? line : ""));
  const used = new Set<keyof typeof HELPERS>();
  out = out.replace(PUSH, (whole, _name: string, error: string) => {
    // schemaPath is not part of the runtime's ValidatorError, and with shared sub-schemas it would
    // be relative to the shared one anyway: it goes.
    const head = HEAD.exec(error);
    if (head === null) return whole;
    const path = head[1] ?? "instancePath";
    const rest = error.slice(head[0].length);
    used.add("pushError");
    const required = REQUIRED.exec(rest);
    if (required) {
      used.add("missing");
      return `vErrors = missing(vErrors, ${path}, ${required[1]});\n`;
    }
    const type = TYPE.exec(rest);
    if (type) {
      used.add("wrongType");
      return `vErrors = wrongType(vErrors, ${path}, "${type[1]}");\n`;
    }
    return `vErrors = pushError(vErrors, {${path === "instancePath" ? path : `instancePath:${path}`},${rest});\n`;
  });
  return `${[...used].map((name) => HELPERS[name]).join("")}${out}`;
}
