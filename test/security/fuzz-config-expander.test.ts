/**
 * Fuzzing the mcp.json `${VAR}` expander and config parser with fast-check: expansion is one pass
 * (a value is never re-expanded), unset variables are reported by name, arbitrary config text
 * either parses or throws `McpConfigError`, and errors never quote configured secret values.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expandVariables, McpConfigError, parseMcpConfig, resolveServerEntry } from "../../packages/runtime/src/manager/config-load.js";
import { expandEnv } from "../../packages/runtime/src/transport/http-headers.js";

const RUNS = 2_000;

const varName = fc.oneof(
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/),
  fc.constantFrom("constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"),
);
/** Literal text that cannot start a reference. */
const literal = fc.string({ unit: "grapheme", maxLength: 12 }).map((s) => s.replace(/\$/g, "#"));
const envValue = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("${OTHER}", "$(touch /tmp/x)", "`id`", "${A:-b}"));

type Piece = { kind: "lit"; text: string } | { kind: "var"; name: string; fallback?: string };
const piece: fc.Arbitrary<Piece> = fc.oneof(
  literal.map((text) => ({ kind: "lit" as const, text })),
  fc.record({ kind: fc.constant("var" as const), name: varName }),
  fc.record({ kind: fc.constant("var" as const), name: varName, fallback: literal.map((t) => t.replace(/}/g, ")")) }),
);

describe("config variable expander fuzzing", () => {
  it("expands each reference once, from the env, the default or onMissing, and never re-expands values", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.dictionary(varName, envValue, { maxKeys: 6 }), (pieces, env) => {
        const template = pieces
          .map((p) => (p.kind === "lit" ? p.text : p.fallback === undefined ? `\${${p.name}}` : `\${${p.name}:-${p.fallback}}`))
          .join("");
        const missing: string[] = [];
        const expected = pieces
          .map((p) => {
            if (p.kind === "lit") return p.text;
            const v = Object.hasOwn(env, p.name) ? env[p.name] : undefined;
            if (v !== undefined && v !== "") return v;
            if (p.fallback !== undefined) return p.fallback;
            if (v !== undefined) return v;
            missing.push(p.name);
            return `<missing:${p.name}>`;
          })
          .join("");
        const reported: string[] = [];
        const got = expandVariables(template, env, (name) => {
          reported.push(name);
          return `<missing:${name}>`;
        });
        expect(got).toBe(expected);
        expect(reported).toEqual(missing);
      }),
      { numRuns: RUNS },
    );
  });

  it("the HTTP header expander agrees with the mcp.json expander, and names an unset variable when it throws", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.dictionary(varName, envValue, { maxKeys: 6 }), (pieces, env) => {
        const template = pieces
          .map((p) => (p.kind === "lit" ? p.text : p.fallback === undefined ? `\${${p.name}}` : `\${${p.name}:-${p.fallback}}`))
          .join("");
        const missing: string[] = [];
        const viaConfig = expandVariables(template, env, (name) => {
          missing.push(name);
          return "";
        });
        let viaHeaders: string | undefined;
        let error = "";
        try {
          viaHeaders = expandEnv(template, env, "header X-Test");
        } catch (e) {
          error = String(e);
        }
        if (missing.length === 0) expect(viaHeaders).toBe(viaConfig);
        else expect(error).toContain(`variable ${missing[0]} is not set`);
      }),
      { numRuns: RUNS },
    );
  });

  it("an entry expands command, args, cwd, env, url and headers alike, naming the field of an unset variable", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.dictionary(varName, envValue, { maxKeys: 6 }), (pieces, env) => {
        const template = pieces
          .map((p) => (p.kind === "lit" ? p.text : p.fallback === undefined ? `\${${p.name}}` : `\${${p.name}:-${p.fallback}}`))
          .join("");
        const missing: string[] = [];
        const expected = expandVariables(template, env, (name) => {
          missing.push(name);
          return "";
        });
        const stdio = { command: `x${template}`, args: [template], cwd: template, env: { K: template } };
        const http = { url: `http://h/${template}`, headers: { "X-K": template } };
        for (const raw of [stdio, http]) {
          const pointers: string[] = [];
          const got = resolveServerEntry("s", raw, {
            file: "f",
            env,
            onMissing: (_name, where) => {
              pointers.push(where.pointer);
              return "";
            },
          }) as { command?: string; args?: string[]; cwd?: string; env?: object; url?: string; headers?: object };
          if (raw === stdio) {
            expect([got.command, got.args, got.cwd, got.env]).toEqual([`x${expected}`, [expected], expected, { K: expected }]);
            const fields = ["command", "args/0", "env/K", "cwd"];
            expect(pointers).toEqual(fields.flatMap((f) => missing.map(() => `/mcpServers/s/${f}`)));
          } else {
            expect([got.url, got.headers]).toEqual([`http://h/${expected}`, { "X-K": expected }]);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("never throws on arbitrary text, and text without ${ is returned unchanged", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), fc.dictionary(varName, envValue), (text, env) => {
        const got = expandVariables(text, env, () => "");
        if (!text.includes("${")) expect(got).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it("arbitrary config text either parses or throws McpConfigError, never anything else", () => {
    const server = fc.dictionary(
      fc.constantFrom(
        "command",
        "args",
        "env",
        "url",
        "headers",
        "cwd",
        "enabled",
        "type",
        "lifecycle",
        "allowTools",
        "timeoutMs",
        "__proto__",
      ),
      fc.jsonValue({ maxDepth: 3 }),
    );
    const config = fc.oneof(
      fc.string({ maxLength: 100 }),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      fc.dictionary(fc.string({ maxLength: 10 }), server, { maxKeys: 4 }).map((servers) => JSON.stringify({ mcpServers: servers })),
    );
    fc.assert(
      fc.property(config, (text) => {
        try {
          parseMcpConfig(text, { env: {}, onMissing: () => "" });
        } catch (error) {
          expect(error).toBeInstanceOf(McpConfigError);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("config errors never quote a literal secret header or env value", () => {
    const secret = "sk-fuzz-0123456789abcdef";
    const broken = fc.constantFrom(
      `{"mcpServers":{"s":{"url":"http://127.0.0.1:1/mcp","headers":{"Authorization":"Bearer ${secret}"},"enabled":"yes"}}}`,
      `{"mcpServers":{"s":{"command":"node","env":{"API_KEY":"${secret}"},"args":[1]}}}`,
      `{"mcpServers":{"s":{"command":"node","env":{"API_KEY":"${secret}" "x":1}}}}`,
      `{"mcpServers":{"s":{"url":"http://127.0.0.1:1/mcp","headers":{"X-Api-Key":"${secret}"} "x" }}}`,
      `{"mcpServers":{"s":{"url":"http://127.0.0.1:1/mcp","headers":{"Authorization":${secret}}}}}`,
    );
    fc.assert(
      fc.property(broken, (text) => {
        let message = "";
        try {
          parseMcpConfig(text, { env: {} });
        } catch (error) {
          message = `${String(error)} ${JSON.stringify(error)}`;
        }
        expect(message).not.toBe("");
        expect(message).not.toContain(secret);
      }),
      { numRuns: 50 },
    );
  });
});
