/** The manager's argument validator: the synchronous check the call path uses once ajv is loaded. */
import { describe, expect, it } from "vitest";
import type { ValidatorError } from "../schema/codec.js";
import { sharedValidatorStats } from "./shared-validators.js";
import { createArgumentValidator, MAX_SCHEMA_TEXTS } from "./validation.js";

const schema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };

describe("createArgumentValidator", () => {
  it("checkNow answers false until ajv is loaded, then the same verdicts as check, without a promise", async () => {
    const validator = createArgumentValidator();
    expect(validator.checkNow(schema, { text: "hi" })).toBe(false);
    expect(await validator.ready()).toBe("ajv");
    expect(validator.checkNow(schema, { text: "hi" })).toBeUndefined();
    const issues = validator.checkNow(schema, { text: 7 });
    expect(issues).not.toBe(false);
    expect(issues).toEqual(await validator.check(schema, { text: 7 }));
    expect((issues as readonly { field: string }[])[0]?.field).toBe("text");
  });

  it("checkNow checks nothing when validation is off", () => {
    const validator = createArgumentValidator("off");
    expect(validator.checkNow(schema, { text: 7 })).toBeUndefined();
  });

  it("checkNow answers as the decoder does (a pass, a non-boolean pass, a failure, a throw), calling the validator once", async () => {
    const validator = createArgumentValidator();
    await validator.ready();
    const decoder = validator.decoderFor(schema);
    expect(decoder).toBeDefined();
    const bad = { text: 7 };
    const decoded = decoder?.(bad);
    expect(decoded?.ok).toBe(false);
    expect(validator.checkNow(schema, bad)).toEqual(decoded && !decoded.ok ? decoded.issues : "unreachable");
    // A custom compiler whose validator answers truthy but not `true` (ajv's $async answers a promise): a pass.
    let runs = 0;
    const truthy = createArgumentValidator(() =>
      Object.assign(
        () => {
          runs++;
          return 1 as unknown as boolean;
        },
        { errors: null },
      ),
    );
    expect(truthy.checkNow(schema, bad)).toBeUndefined();
    expect(runs).toBe(1);
    // A validator that overflows the stack on a deep value: the decoder's issue, not a throw.
    const deep = createArgumentValidator(() =>
      Object.assign(
        () => {
          runs++;
          throw new RangeError("Maximum call stack size exceeded");
        },
        { errors: null },
      ),
    );
    const issues = deep.checkNow(schema, bad);
    expect(issues).toEqual([{ field: "", constraint: "invalid_field_type", expected: expect.stringMatching(/nested less deeply/) }]);
    expect(runs).toBe(2);
    expect(deep.decoderFor(schema)?.(bad)).toEqual({ ok: false, issues });
    expect(runs).toBe(3);
  });

  it("compiles each schema object once, and leaves a schema it cannot compile to the server", () => {
    let compiles = 0;
    const validator = createArgumentValidator((s) => {
      compiles++;
      if (s.type === "broken") throw new Error("cannot compile");
      const validate = Object.assign(
        (v: unknown) => {
          validate.errors = typeof v === "object" ? null : [{ instancePath: "", keyword: "type", params: { type: "object" } }];
          return typeof v === "object";
        },
        { errors: null as ValidatorError[] | null },
      );
      return validate;
    });
    expect(validator.checkNow(schema, {})).toBeUndefined();
    expect(validator.checkNow(schema, 5)).toEqual([expect.objectContaining({ field: "" })]);
    expect(compiles).toBe(1);
    const broken = { type: "broken" };
    expect(validator.checkNow(broken, 5)).toBeUndefined();
    expect(validator.checkNow(broken, 5)).toBeUndefined();
    expect(validator.decoderFor(broken)).toBeUndefined();
    expect(compiles).toBe(2);
  });

  it("a schema listed again as a new object reuses its compiled validator; a changed one compiles", () => {
    const compiledSchemas: object[] = [];
    const validator = createArgumentValidator((s) => {
      compiledSchemas.push(s);
      return Object.assign((v: unknown) => typeof v === "object", { errors: null });
    });
    const listed = () => JSON.parse(JSON.stringify(schema)) as typeof schema;
    const first = listed();
    const again = listed();
    expect(first).not.toBe(again);
    expect(validator.checkNow(first, {})).toBeUndefined();
    expect(validator.checkNow(again, {})).toBeUndefined();
    expect(validator.decoderFor(again)).toBe(validator.decoderFor(first));
    expect(compiledSchemas).toEqual([first]);
    const changed = { ...listed(), required: [] };
    expect(validator.checkNow(changed, {})).toBeUndefined();
    expect(compiledSchemas).toEqual([first, changed]);
    // A schema that is not JSON (a cyclic object from a custom client) is compiled for itself.
    const cyclic: { [key: string]: unknown } = { type: "object" };
    cyclic.self = cyclic;
    expect(validator.checkNow(cyclic, {})).toBeUndefined();
    expect(validator.checkNow(cyclic, {})).toBeUndefined();
    expect(compiledSchemas).toEqual([first, changed, cyclic]);
  });

  it("keeps at most MAX_SCHEMA_TEXTS schema texts, dropping the oldest first", () => {
    let compiles = 0;
    const validator = createArgumentValidator(() => {
      compiles++;
      return Object.assign(() => true, { errors: null });
    });
    const numbered = (n: number) => ({ type: "object", description: `tool ${n}` });
    for (let n = 0; n <= MAX_SCHEMA_TEXTS; n++) validator.checkNow(numbered(n), {});
    expect(compiles).toBe(MAX_SCHEMA_TEXTS + 1);
    validator.checkNow(numbered(MAX_SCHEMA_TEXTS), {}); // the newest text is still kept
    expect(compiles).toBe(MAX_SCHEMA_TEXTS + 1);
    validator.checkNow(numbered(0), {}); // the oldest was dropped: compiled again
    expect(compiles).toBe(MAX_SCHEMA_TEXTS + 2);
  });

  it("a schema with an $id listed again still checks arguments (ajv refuses to compile an $id twice)", async () => {
    const validator = createArgumentValidator();
    await validator.ready();
    const withId = () => ({ $id: "https://example.test/echo.json", ...schema });
    expect(validator.checkNow(withId(), { text: 7 })).toEqual([expect.objectContaining({ field: "text" })]);
    expect(validator.checkNow(withId(), { text: 7 })).toEqual([expect.objectContaining({ field: "text" })]);
  });

  it("auto validators share ajv and the compiled schemas process-wide: a thousand managers compile a schema text once", async () => {
    await createArgumentValidator().ready();
    const text = { type: "object", properties: { n: { type: "integer" } }, required: ["n"], description: "shared once" };
    const before = sharedValidatorStats();
    for (let i = 0; i < 1000; i++) {
      const validator = createArgumentValidator();
      await validator.ready();
      // A new object each time, as each principal's own tools/list gives.
      expect(validator.checkNow(structuredClone(text), { n: i % 2 === 0 ? 1 : "x" })).toEqual(
        i % 2 === 0 ? undefined : [expect.objectContaining({ field: "n" })],
      );
    }
    expect(sharedValidatorStats()).toEqual({ ...before, compiles: before.compiles + 1 });
  });

  it("no schema of one manager answers another's $ref: compiled schemas are not registered by $id", async () => {
    const one = createArgumentValidator();
    const two = createArgumentValidator();
    await Promise.all([one.ready(), two.ready()]);
    const owned = { $id: "https://tenant-a.test/args.json", type: "object", properties: { a: { type: "string" } } };
    expect(one.checkNow(owned, { a: 5 })).toEqual([expect.objectContaining({ field: "a" })]);
    // Registered, this $ref would check `a` with the first manager's schema; unregistered it does not
    // compile, and the server checks the arguments.
    expect(two.checkNow({ $ref: "https://tenant-a.test/args.json" }, { a: 5 })).toBeUndefined();
  });

  it("a failed check leaves no errors on the validate function (they name the caller's properties)", () => {
    const made: { (value: unknown): boolean; errors: ValidatorError[] | null }[] = [];
    const validator = createArgumentValidator(() => {
      const run = Object.assign(
        (value: unknown) => {
          const ok = typeof value === "number";
          run.errors = ok ? null : [{ instancePath: "/secret-name", keyword: "type", params: { type: "number" } }];
          return ok;
        },
        { errors: null as ValidatorError[] | null },
      );
      made.push(run);
      return run;
    });
    const schema = { type: "number" };
    expect(validator.checkNow(schema, "x")).toEqual([expect.objectContaining({ field: "secret-name" })]);
    expect(made).toHaveLength(1);
    expect(made[0]?.errors).toBeNull();
    expect(validator.decoderFor(schema)?.("y")).toMatchObject({ ok: false, issues: [{ field: "secret-name" }] });
    expect(made[0]?.errors).toBeNull();
  });
});
