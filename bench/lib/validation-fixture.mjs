// The schema and payloads for the validation benchmark: a tool input with formats, patterns, enums,
// ranges, nested objects and arrays; payloads are deterministic (seeded), about 10% invalid.

/** A realistic tool input schema (JSON Schema 2020-12 subset that ajv's default draft accepts). */
export const SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["id", "email", "kind", "quantity", "items"],
  properties: {
    id: { type: "string", pattern: "^[a-z]{3}-[0-9]{4}$" },
    email: { type: "string", format: "email" },
    kind: { type: "string", enum: ["order", "refund", "quote"] },
    quantity: { type: "integer", minimum: 1, maximum: 1000 },
    note: { type: "string", maxLength: 200 },
    when: { type: "string", format: "date-time" },
    urgent: { type: "boolean" },
    items: {
      type: "array",
      minItems: 1,
      maxItems: 20,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["sku", "price"],
        properties: {
          sku: { type: "string", minLength: 3, maxLength: 16 },
          price: { type: "number", exclusiveMinimum: 0 },
          tags: { type: "array", items: { type: "string" }, maxItems: 5 },
        },
      },
    },
    address: {
      type: "object",
      required: ["city"],
      properties: { city: { type: "string", minLength: 1 }, zip: { type: "string", pattern: "^[0-9]{5}$" } },
    },
  },
};

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `count` payloads; every tenth breaks one rule. */
export function payloads(count) {
  const r = rng(42);
  const out = new Array(count);
  for (let i = 0; i < count; i++) {
    const items = Array.from({ length: 1 + Math.floor(r() * 4) }, (_, j) => ({
      sku: `SKU-${i}-${j}`,
      price: 1 + Math.floor(r() * 10000) / 100,
      ...(r() < 0.5 ? { tags: ["a", "b"] } : {}),
    }));
    const p = {
      id: `abc-${String(i % 10000).padStart(4, "0")}`,
      email: `user${i}@example.com`,
      kind: ["order", "refund", "quote"][i % 3],
      quantity: 1 + (i % 999),
      when: "2026-11-29T18:00:00Z",
      urgent: i % 2 === 0,
      items,
      address: { city: "Lyon", zip: "69001" },
    };
    if (i % 10 === 9) {
      switch (Math.floor(i / 10) % 5) {
        case 0:
          delete p.email;
          break;
        case 1:
          p.kind = "gift";
          break;
        case 2:
          p.quantity = 5000;
          break;
        case 3:
          p.extra = true;
          break;
        default:
          p.items[0].price = "free";
      }
    }
    out[i] = p;
  }
  return out;
}
