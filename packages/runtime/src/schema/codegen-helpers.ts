/**
 * Helpers that precompiled validators call at run time. ajv's standalone output normally
 * `require`s these from ajv itself; the code generator rewrites those calls to these symbols so
 * generated code depends on `@toolwright/runtime` only, and the runtime stays dependency-free.
 */

/** Length of a string in Unicode code points (surrogate pairs count once), as JSON Schema defines it. */
export function ucs2length(value: string): number {
  let length = 0;
  let pos = 0;
  while (pos < value.length) {
    length++;
    const code = value.charCodeAt(pos++);
    // A high surrogate followed by a low surrogate is one code point.
    if (code >= 0xd800 && code <= 0xdbff && pos < value.length) {
      const next = value.charCodeAt(pos);
      if ((next & 0xfc00) === 0xdc00) pos++;
    }
  }
  return length;
}

/**
 * Structural equality of JSON values (for `const`, `enum` and `uniqueItems`). Key order does not
 * matter and keys are compared as own properties, so `{}` never equals an object that merely
 * inherits a key; only JSON values reach it, so no Date, Map or cycle handling is needed.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const key of ka) {
    if (!Object.hasOwn(b, key)) return false;
    if (!deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

// RFC 3339 §5.6 grammar, checked as ajv-formats' "full" mode checks it, so a value valid at
// generation stays valid at run time.
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
const TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : (DAYS[month] ?? 0));
}

/** `time` needs a zone (RFC 3339 full-time); ajv-formats' `iso-time` does not, hence `strictZone`. */
function timeChecker(strictZone: boolean): (value: string) => boolean {
  return (value) => {
    const m = TIME.exec(value);
    if (!m) return false;
    const hour = Number(m[1]);
    const minute = Number(m[2]);
    const second = Number(m[3]);
    if (strictZone && m[4] === undefined) return false;
    const tzSign = m[5] === "-" ? -1 : 1;
    const tzHour = Number(m[6] ?? 0);
    const tzMinute = Number(m[7] ?? 0);
    if (tzHour > 23 || tzMinute > 59) return false;
    if (hour <= 23 && minute <= 59 && second < 60) return true;
    // Leap second: only valid at 23:59:60 UTC.
    const utcMinute = minute - tzMinute * tzSign;
    const utcHour = hour - tzHour * tzSign - (utcMinute < 0 ? 1 : 0);
    return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
  };
}

function dateTimeChecker(strictZone: boolean, separator: RegExp): (value: string) => boolean {
  const time = timeChecker(strictZone);
  return (value) => {
    const parts = value.split(separator);
    return parts.length === 2 && isDate(parts[0] ?? "") && time(parts[1] ?? "");
  };
}

/** formatMinimum/formatMaximum: same-zone RFC 3339 values of equal precision sort as strings. */
function compareStrings(a: string, b: string): number | undefined {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

// `byte` is base64 (OpenAPI); `uri` is ajv-formats' fast check (a scheme, then no whitespace).
const BYTE = /^(?:[a-z0-9+/]{4})*(?:[a-z0-9+/]{2}==|[a-z0-9+/]{3}=)?$/i;
const URI = /^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/)?[^\s]*$/i;
const MIN_INT32 = -(2 ** 31);
const MAX_INT32 = 2 ** 31 - 1;

/** A format definition in the shapes ajv's standalone code expects. */
export type FormatEntry =
  | true
  | ((value: string) => boolean)
  | {
      readonly type?: string;
      readonly validate: (value: never) => boolean;
      readonly compare?: (a: string, b: string) => number | undefined;
    };

/**
 * Format checks that ajv's standalone code refers to by name (`formats["date-time"]`). Formats that
 * ajv-formats defines as plain regular expressions are inlined by ajv and never looked up here.
 */
export const formats: { readonly [name: string]: FormatEntry } = Object.assign(Object.create(null), {
  date: { validate: isDate, compare: compareStrings },
  time: { validate: timeChecker(true), compare: compareStrings },
  "date-time": { validate: dateTimeChecker(true, /t|\s/i), compare: compareStrings },
  "iso-time": { validate: timeChecker(false), compare: compareStrings },
  "iso-date-time": { validate: dateTimeChecker(false, /t|\s/i), compare: compareStrings },
  uri: (value: string) => URI.test(value),
  byte: (value: string) => BYTE.test(value),
  int32: { type: "number", validate: (value: number) => Number.isInteger(value) && value >= MIN_INT32 && value <= MAX_INT32 },
  int64: { type: "number", validate: (value: number) => Number.isInteger(value) },
  float: { type: "number", validate: () => true },
  double: { type: "number", validate: () => true },
  regex: (value: string) => {
    // ajv-formats' own \Z check, kept so a pattern judged at generation is judged the same at run time.
    if (/[^\\]\\Z/.test(value)) return false;
    try {
      new RegExp(value, "u");
      return true;
    } catch {
      return false;
    }
  },
  // Annotations only (OpenAPI): any string passes.
  password: true,
  binary: true,
}) as { readonly [name: string]: FormatEntry }; // prototype-free: a format named "constructor" is not a function
