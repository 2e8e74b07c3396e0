/** The manager's argument validator: the synchronous check the call path uses once ajv is loaded. */
import { describe, expect, it } from "vitest";
import { createArgumentValidator } from "./validation.js";

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
});
