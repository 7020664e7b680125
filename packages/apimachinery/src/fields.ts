import { newBadRequest } from "./errors/index.js";
import { compareStrings, goQuote } from "./internal/go-strings.js";
import { SelectorParseError } from "./selector-parse-error.js";

/**
 * One term of a field selector (`fields.Requirement`): `field`, `operator` and `value`. `==` in the text is
 * reported as `=`, as upstream maps both to `selection.Equals`.
 */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: "=" | "!=";
  readonly value: string;
}

/** A field set: field path → value (`fields.Set`); a missing field reads as "". */
export type Fields = Readonly<Record<string, string>>;

/**
 * Rewrites one term of a field selector (`fields.TransformFunc`); returning `["", ""]` drops the term. Throw to
 * reject the term.
 */
export type FieldTransformFunc = (field: string, value: string) => readonly [field: string, value: string];

/**
 * A parsed field selector (`fields.Selector`). Immutable.
 *
 * - `matches(fields)`: every term holds, reading a missing field as "" (so `f!=x` matches objects without `f`,
 *   and `f=` matches them too).
 * - `empty()`: true when it selects everything. {@link fieldsNothing} is not empty.
 * - `matchesNothing()`: true only for {@link fieldsNothing}.
 * - `toString()`: the terms joined by `,`, values escaped ({@link escapeValue}); `==` prints as `=`.
 * - `requirements()`: the terms in order (a parsed selector orders them by their text).
 * - `requiresExactMatch(field)`: the value of the first `field=value` term for `field`, else `undefined`.
 * - `transform(fn)`: a new selector with every term rewritten by `fn`.
 */
export interface FieldSelector {
  matches(fields: Fields | undefined): boolean;
  empty(): boolean;
  matchesNothing(): boolean;
  toString(): string;
  requirements(): readonly FieldRequirement[];
  requiresExactMatch(field: string): string | undefined;
  transform(fn: FieldTransformFunc): FieldSelector;
}

function fieldValue(fields: Fields | undefined, field: string): string {
  if (fields === undefined || fields === null || !Object.hasOwn(fields, field)) return "";
  return fields[field] ?? "";
}

function termString(t: FieldRequirement): string {
  return `${t.field}${t.operator}${escapeValue(t.value)}`;
}

// An AND of terms (`andTerm` of `hasTerm`/`notHasTerm`). Nested ANDs are flattened, which keeps every method's
// result the same.
class TermsSelector implements FieldSelector {
  constructor(private readonly terms: readonly FieldRequirement[]) {}

  matches(fields: Fields | undefined): boolean {
    for (const t of this.terms) {
      const v = fieldValue(fields, t.field);
      if (t.operator === "=" ? v !== t.value : v === t.value) return false;
    }
    return true;
  }

  empty(): boolean {
    return this.terms.length === 0;
  }

  matchesNothing(): boolean {
    return false;
  }

  toString(): string {
    return this.terms.map(termString).join(",");
  }

  requirements(): readonly FieldRequirement[] {
    return this.terms;
  }

  requiresExactMatch(field: string): string | undefined {
    for (const t of this.terms) if (t.operator === "=" && t.field === field) return t.value;
    return undefined;
  }

  transform(fn: FieldTransformFunc): FieldSelector {
    const next: FieldRequirement[] = [];
    for (const t of this.terms) {
      const [field, value] = fn(t.field, t.value);
      if (field === "" && value === "") continue;
      next.push(Object.freeze({ field, operator: t.operator, value }));
    }
    return next.length === 0 ? sharedEverything : new TermsSelector(Object.freeze(next));
  }
}

class NothingFieldSelector implements FieldSelector {
  matches(): boolean {
    return false;
  }
  empty(): boolean {
    return false;
  }
  matchesNothing(): boolean {
    return true;
  }
  toString(): string {
    return "";
  }
  requirements(): readonly FieldRequirement[] {
    return [];
  }
  requiresExactMatch(): string | undefined {
    return undefined;
  }
  transform(): FieldSelector {
    return this;
  }
}

const sharedEverything: FieldSelector = Object.freeze(new TermsSelector(Object.freeze([])));
const sharedNothing: FieldSelector = Object.freeze(new NothingFieldSelector());

/** A field selector that matches everything (`fields.Everything`). */
export function fieldsEverything(): FieldSelector {
  return sharedEverything;
}

/** A field selector that matches nothing (`fields.Nothing`); prints as "". */
export function fieldsNothing(): FieldSelector {
  return sharedNothing;
}

/**
 * A selector requiring `field=value` for every entry of `set` (`fields.SelectorFromSet`); `undefined` selects
 * everything. Terms are ordered by field (Go iterates the map in random order).
 */
export function fieldSelectorFromSet(set: Fields | undefined): FieldSelector {
  if (set === undefined || set === null) return sharedEverything;
  const keys = Object.keys(set).sort(compareStrings);
  return new TermsSelector(
    Object.freeze(keys.map((field) => Object.freeze({ field, operator: "=" as const, value: set[field]! }))),
  );
}

/** `fields.OneTermEqualSelector`: `field=value`. */
export function oneTermEqualSelector(field: string, value: string): FieldSelector {
  return new TermsSelector(Object.freeze([Object.freeze({ field, operator: "=" as const, value })]));
}

/** `fields.OneTermNotEqualSelector`: `field!=value`. */
export function oneTermNotEqualSelector(field: string, value: string): FieldSelector {
  return new TermsSelector(Object.freeze([Object.freeze({ field, operator: "!=" as const, value })]));
}

/**
 * `fields.AndSelectors`: all of `selectors` must match.
 *
 * Differences from apimachinery: if any of them is {@link fieldsNothing} the result is `fieldsNothing()` (upstream
 * keeps it inside the AND, which also never matches but prints differently).
 */
export function andSelectors(...selectors: FieldSelector[]): FieldSelector {
  const terms: FieldRequirement[] = [];
  for (const s of selectors) {
    if (s.matchesNothing()) return sharedNothing;
    terms.push(...s.requirements());
  }
  return new TermsSelector(Object.freeze(terms));
}

/** `fields.EscapeValue`: escapes `\`, `,` and `=` with a backslash so a value can be embedded in a selector. */
export function escapeValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

// Unescapes `s`; on failure returns the upstream message and the offset of the offending character.
function tryUnescape(s: string): { value: string } | { error: string; at: number } {
  if (!/[\\,=]/.test(s)) return { value: s };
  let out = "";
  let inSlash = false;
  let i = 0;
  for (const c of s) {
    if (inSlash) {
      if (c === "\\" || c === "," || c === "=") out += c;
      else return { error: `invalid field selector: invalid escape sequence: \\${c}`, at: i - 1 };
      inSlash = false;
    } else if (c === "\\") inSlash = true;
    else if (c === "," || c === "=")
      // Upstream formats the rune with %v, which prints its code point.
      return { error: `invalid field selector: unescaped character in value: ${c.codePointAt(0)}`, at: i };
    else out += c;
    i += c.length;
  }
  if (inSlash) return { error: "invalid field selector: invalid escape sequence: \\", at: s.length - 1 };
  return { value: out };
}

/**
 * `fields.UnescapeValue`: undoes {@link escapeValue}.
 *
 * @throws {SelectorParseError} `invalid field selector: invalid escape sequence: \x` for a backslash before
 *   anything but `\ , =`, or `invalid field selector: unescaped character in value: 61` (the code point, as
 *   upstream prints it) for a bare `,` or `=`.
 */
export function unescapeValue(s: string): string {
  const r = tryUnescape(s);
  if ("error" in r) throw new SelectorParseError("field", r.error);
  return r.value;
}

/** `splitTerms`: splits on commas that are not escaped, keeping each term's offset. Exported for tests only. */
export function splitTerms(s: string): Array<{ text: string; start: number }> {
  if (s.length === 0) return [];
  const terms: Array<{ text: string; start: number }> = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      terms.push({ text: s.slice(start, i), start });
      start = i + 1;
    }
  }
  terms.push({ text: s.slice(start), start });
  return terms;
}

const termOperators = ["!=", "==", "="] as const;

/**
 * `splitTerm`: the first position where an operator starts (trying `!=`, `==`, `=` there) splits the term.
 * Exported for tests only.
 */
export function splitTerm(term: string): { lhs: string; op: (typeof termOperators)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/**
 * Parses a field selector (`fields.ParseSelector`): comma-separated terms `field=value`, `field==value` or
 * `field!=value`, ANDed. Commas, `=` and backslashes inside values must be escaped with `\`. Empty terms are
 * skipped, terms are ordered by their text, and a term with both an empty field and an empty value is dropped
 * (so `""` and `"="` select everything). Field names are not checked here; see
 * {@link validateFieldSelectorFields}.
 *
 * @throws {SelectorParseError} `invalid selector: '<s>'; can't understand '<term>'` for a term without an
 *   operator, or an escaping error (see {@link unescapeValue}); `position` is the offset in `s`.
 */
export function parseFieldSelector(s: string): FieldSelector {
  return parseAndTransformFieldSelector(s, (field, value) => [field, value]);
}

/**
 * `fields.ParseAndTransformSelector`: {@link parseFieldSelector}, then {@link FieldSelector.transform} with
 * `fn`. Errors thrown by `fn` propagate unchanged.
 */
export function parseAndTransformFieldSelector(s: string, fn: FieldTransformFunc): FieldSelector {
  if (typeof s !== "string") throw new SelectorParseError("field", `field selector must be a string, got ${typeof s}`);
  const parts = splitTerms(s).sort((a, b) => compareStrings(a.text, b.text));
  const terms: FieldRequirement[] = [];
  for (const part of parts) {
    if (part.text === "") continue;
    const split = splitTerm(part.text);
    if (split === undefined)
      throw new SelectorParseError("field", `invalid selector: '${s}'; can't understand '${part.text}'`, s, part.start);
    const unescaped = tryUnescape(split.rhs);
    if ("error" in unescaped) {
      const rhsStart = part.start + split.lhs.length + split.op.length;
      throw new SelectorParseError("field", unescaped.error, s, rhsStart + unescaped.at);
    }
    terms.push(Object.freeze({ field: split.lhs, operator: split.op === "!=" ? "!=" : "=", value: unescaped.value }));
  }
  return new TermsSelector(Object.freeze(terms)).transform(fn);
}

/** The field labels every kind supports (`runtime.DefaultMetaV1FieldSelectorConversion`). */
export const DEFAULT_FIELD_SELECTOR_FIELDS: readonly string[] = Object.freeze(["metadata.name", "metadata.namespace"]);

/**
 * The field set of an object for field selectors (what the registry's `GetAttrs` produces):
 * `metadata.name` and `metadata.namespace` (both "" when absent), plus each dotted path in `extra` (for example
 * `spec.nodeName` or `status.phase` for pods). Strings are used as they are, numbers and booleans printed
 * (`true`/`false`, like Go's `FormatBool`), anything else or a missing field gives "".
 *
 * Differences from kube-apiserver: upstream omits `metadata.namespace` for cluster-scoped kinds; since a missing
 * field reads as "" the selectors match the same objects.
 */
export function objectFieldSet(obj: unknown, extra: readonly string[] = []): Record<string, string> {
  const meta = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata : undefined;
  const set: Record<string, string> = {
    "metadata.name": typeof meta?.name === "string" ? meta.name : "",
    "metadata.namespace": typeof meta?.namespace === "string" ? meta.namespace : "",
  };
  for (const path of extra) set[path] = scalarAt(obj, path);
  return set;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function scalarAt(obj: unknown, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (!isRecord(cur) || !Object.hasOwn(cur, part)) return "";
    cur = cur[part];
  }
  if (typeof cur === "string") return cur;
  if (typeof cur === "number" || typeof cur === "boolean" || typeof cur === "bigint") return String(cur);
  return "";
}

/**
 * Checks that a field selector uses only supported field labels, as kube-apiserver does when it converts the
 * selector (`Scheme.ConvertFieldLabel`). With the default list the error is the one of
 * `runtime.DefaultMetaV1FieldSelectorConversion`:
 * `"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"`; with a kind-specific
 * list (pods, events…) it is `field label not supported: spec.foo`, as the kinds' own conversion functions say.
 * Terms are checked in order and the first unsupported one is reported.
 *
 * @throws {StatusError} 400 BadRequest with that message.
 */
export function validateFieldSelectorFields(
  selector: FieldSelector,
  allowed: readonly string[] = DEFAULT_FIELD_SELECTOR_FIELDS,
): void {
  const isDefault =
    allowed.length === DEFAULT_FIELD_SELECTOR_FIELDS.length &&
    DEFAULT_FIELD_SELECTOR_FIELDS.every((f) => allowed.includes(f));
  for (const r of selector.requirements()) {
    if (allowed.includes(r.field)) continue;
    throw newBadRequest(
      isDefault
        ? `${goQuote(r.field)} is not a known field selector: only "metadata.name", "metadata.namespace"`
        : `field label not supported: ${r.field}`,
    );
  }
}
