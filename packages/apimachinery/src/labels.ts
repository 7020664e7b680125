import { aggregateMessage, invalidValueError, notSupportedError } from "./internal/field-path.js";
import { compareStrings, goQuote, parseInt64, sortedStrings } from "./internal/go-strings.js";
import { type ScannedItem, scan, type Token } from "./internal/label-lexer.js";
import { SelectorParseError } from "./selector-parse-error.js";
import { isQualifiedName, isValidLabelValue } from "./validation.js";

/**
 * A selection operator (`selection.Operator`), spelled as upstream spells it: `in`, `notin`, `=`, `==`, `!=`,
 * `exists`, `!` (does not exist), `gt`, `lt`.
 */
export type Operator = "in" | "notin" | "=" | "==" | "!=" | "exists" | "!" | "gt" | "lt";

/** The {@link Operator} values by their Go names (`selection.In`, `selection.DoesNotExist`, …). */
export const Operators = {
  In: "in",
  NotIn: "notin",
  Equals: "=",
  DoubleEquals: "==",
  NotEquals: "!=",
  Exists: "exists",
  DoesNotExist: "!",
  GreaterThan: "gt",
  LessThan: "lt",
} as const satisfies Record<string, Operator>;

// `binaryOperators` and `validRequirementOperators`, in upstream order (they appear in error messages).
const binaryOperators: readonly Operator[] = ["in", "notin", "=", "==", "!=", "gt", "lt"];
const validRequirementOperators: readonly Operator[] = [...binaryOperators, "exists", "!"];

/**
 * One term of a label selector (`labels.Requirement`): `key`, `operator` and `values`. Values are kept in the
 * order they were given; a parsed requirement has them sorted and de-duplicated (upstream parses into a set).
 * Build one with {@link newRequirement}, which validates it.
 */
export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values: readonly string[];
}

/** A label set: label key → value. `undefined` is an empty set (a nil `labels.Set`). */
export type Labels = Readonly<Record<string, string>>;

/**
 * A parsed label selector (`labels.Selector`). Immutable.
 *
 * - `matches(labels)`: every requirement holds for `labels` (an empty selector matches everything,
 *   {@link nothing} matches nothing).
 * - `empty()`: true when it does not restrict selection (no requirements). {@link nothing} is not empty.
 * - `matchesNothing()`: true only for {@link nothing} (`labels.MatchesNothing`).
 * - `toString()`: the canonical text, requirements sorted by key and values sorted; `parseLabelSelector` of
 *   it gives an equivalent selector (except for {@link nothing}, which prints as "" like upstream).
 * - `requirements()`: the requirements, sorted by key ({@link nothing} has none).
 * - `requiresExactMatch(label)`: the value the selector requires for `label` when the first requirement on
 *   that key is `=`, `==` or a single-valued `in`; otherwise `undefined`.
 * - `add(...reqs)`: a new selector with the requirements added (and sorted by key).
 */
export interface LabelSelector {
  matches(labels: Labels | undefined): boolean;
  empty(): boolean;
  matchesNothing(): boolean;
  toString(): string;
  requirements(): readonly Requirement[];
  requiresExactMatch(label: string): string | undefined;
  add(...reqs: Requirement[]): LabelSelector;
}

function labelError(detail: string, input?: string, position?: number): SelectorParseError {
  return new SelectorParseError("label", detail, input, position);
}

// `validateLabelKey`: one field error whose detail joins every problem with "; ".
function labelKeyProblem(key: string, path: string | undefined): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length === 0 ? undefined : invalidValueError(path, key, errs.join("; "));
}

// `validateLabelValue`: the path gets the key as a subscript, e.g. `values[0][app]`.
function labelValueProblem(key: string, value: string, path: string): string | undefined {
  const errs = isValidLabelValue(value);
  return errs.length === 0 ? undefined : invalidValueError(`${path}[${key}]`, value, errs.join("; "));
}

// Validation of NewRequirement; returns the field error messages in upstream order. `nilValues` prints an
// empty value list as Go prints a nil slice (`null`), which is what LabelSelectorAsSelector passes.
function requirementProblems(
  key: string,
  op: string,
  values: readonly string[],
  path: string | undefined,
  nilValues = false,
): string[] {
  const child = (name: string) => (path === undefined ? name : `${path}.${name}`);
  const problems: string[] = [];
  const keyProblem = labelKeyProblem(key, child("key"));
  if (keyProblem !== undefined) problems.push(keyProblem);
  const valuePath = child("values");
  const shown = nilValues && values.length === 0 ? null : values;
  switch (op) {
    case "in":
    case "notin":
      if (values.length === 0)
        problems.push(invalidValueError(valuePath, shown, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case "=":
    case "==":
    case "!=":
      if (values.length !== 1)
        problems.push(invalidValueError(valuePath, shown, "exact-match compatibility requires one single value"));
      break;
    case "exists":
    case "!":
      if (values.length !== 0)
        problems.push(invalidValueError(valuePath, shown, "values set must be empty for exists and does not exist"));
      break;
    case "gt":
    case "lt":
      if (values.length !== 1)
        problems.push(invalidValueError(valuePath, shown, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined)
          problems.push(
            invalidValueError(`${valuePath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"),
          );
      });
      break;
    default:
      problems.push(notSupportedError(child("operator"), op, validRequirementOperators));
  }
  values.forEach((v, i) => {
    const p = labelValueProblem(key, v, `${valuePath}[${i}]`);
    if (p !== undefined) problems.push(p);
  });
  return problems;
}

/**
 * Builds a validated {@link Requirement} (`labels.NewRequirement`). Rules: the key is a qualified name; `in`
 * and `notin` need at least one value; `=`, `==`, `!=` exactly one; `exists` and `!` none; `gt` and `lt`
 * exactly one that parses as an int64; every value is a valid label value (the empty string is valid).
 *
 * @throws {SelectorParseError} with upstream's aggregated field errors, e.g.
 *   `key: Invalid value: "a b": name part must consist of …` or `[values[0][x]: …, values[1][x]: …]`.
 */
export function newRequirement(key: string, operator: Operator, values: readonly string[] = []): Requirement {
  return buildRequirement(key, operator, values, false);
}

function buildRequirement(key: string, operator: Operator, values: readonly string[], nilValues: boolean): Requirement {
  const problems = requirementProblems(key, operator, values, undefined, nilValues);
  if (problems.length > 0) throw labelError(aggregateMessage(problems));
  return Object.freeze({ key, operator, values: Object.freeze([...values]) });
}

function hasValue(req: Requirement, value: string): boolean {
  return req.values.includes(value);
}

/** `Requirement.Matches` (see the cases in {@link LabelSelector}): absent keys satisfy `!=`, `notin` and `!`. */
export function requirementMatches(req: Requirement, labels: Labels | undefined): boolean {
  const has = labels !== undefined && labels !== null && Object.hasOwn(labels, req.key);
  switch (req.operator) {
    case "in":
    case "=":
    case "==":
      return has && hasValue(req, labels[req.key]!);
    case "notin":
    case "!=":
      return !has || !hasValue(req, labels[req.key]!);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has) return false;
      const actual = parseInt64(labels[req.key]!);
      if (actual === undefined || req.values.length !== 1) return false;
      const bound = parseInt64(req.values[0]!);
      if (bound === undefined) return false;
      return req.operator === "gt" ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

/**
 * `Requirement.String`: `!key`, `key`, `key=v`, `key==v`, `key!=v`, `key>v`, `key<v`, `key in (a,b)`,
 * `key notin (a,b)`. Several values print sorted (the requirement itself is not changed).
 */
export function requirementString(req: Requirement): string {
  let s = req.operator === "!" ? `!${req.key}` : req.key;
  switch (req.operator) {
    case "=":
      s += "=";
      break;
    case "==":
      s += "==";
      break;
    case "!=":
      s += "!=";
      break;
    case "in":
      s += " in ";
      break;
    case "notin":
      s += " notin ";
      break;
    case "gt":
      s += ">";
      break;
    case "lt":
      s += "<";
      break;
    case "exists":
    case "!":
      return s;
  }
  const set = req.operator === "in" || req.operator === "notin";
  const values = req.values.length === 1 ? req.values[0]! : sortedStrings(req.values).join(",");
  return set ? `${s}(${values})` : s + values;
}

function byKey(a: Requirement, b: Requirement): number {
  return compareStrings(a.key, b.key);
}

class InternalSelector implements LabelSelector {
  constructor(private readonly reqs: readonly Requirement[]) {}

  matches(labels: Labels | undefined): boolean {
    for (const r of this.reqs) if (!requirementMatches(r, labels)) return false;
    return true;
  }

  empty(): boolean {
    return this.reqs.length === 0;
  }

  matchesNothing(): boolean {
    return false;
  }

  toString(): string {
    return this.reqs.map(requirementString).join(",");
  }

  requirements(): readonly Requirement[] {
    return this.reqs;
  }

  requiresExactMatch(label: string): string | undefined {
    for (const r of this.reqs) {
      if (r.key !== label) continue;
      if ((r.operator === "=" || r.operator === "==" || r.operator === "in") && r.values.length === 1)
        return r.values[0];
      return undefined;
    }
    return undefined;
  }

  add(...reqs: Requirement[]): LabelSelector {
    // Stable sort: requirements with the same key keep their order (Go's sort.Sort does not promise that).
    return new InternalSelector(Object.freeze([...this.reqs, ...reqs].sort(byKey)));
  }
}

class NothingSelector implements LabelSelector {
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
  requirements(): readonly Requirement[] {
    return [];
  }
  requiresExactMatch(): string | undefined {
    return undefined;
  }
  add(): LabelSelector {
    return this;
  }
}

const sharedEverything: LabelSelector = Object.freeze(new InternalSelector(Object.freeze([])));
const sharedNothing: LabelSelector = Object.freeze(new NothingSelector());

/** A selector that matches every label set (`labels.Everything`); `empty()` is true. */
export function everything(): LabelSelector {
  return sharedEverything;
}

/** A selector that matches nothing (`labels.Nothing`); `matchesNothing()` is true and it prints as "". */
export function nothing(): LabelSelector {
  return sharedNothing;
}

/**
 * `labels.MatchesNothing`: true only for {@link nothing}. Accepts any selector-like value (label or field
 * selector, or a structural one whose `matchesNothing` is optional): the one "matches nothing" test of the repo.
 */
export function matchesNothing(selector: { matchesNothing?(): boolean }): boolean {
  return selector.matchesNothing?.() === true;
}

/**
 * A selector requiring `key=value` for every entry of `set` (`labels.SelectorFromSet`). An undefined or empty
 * set gives {@link everything}. Like upstream, the set is not validated.
 */
export function selectorFromSet(set: Labels | undefined): LabelSelector {
  if (set === undefined || set === null) return sharedEverything;
  const keys = Object.keys(set);
  if (keys.length === 0) return sharedEverything;
  keys.sort(compareStrings);
  return new InternalSelector(
    Object.freeze(
      keys.map((key) => Object.freeze({ key, operator: "=" as const, values: Object.freeze([set[key]!]) })),
    ),
  );
}

/** `metav1.LabelSelectorRequirement`: `{ key, operator: "In" | "NotIn" | "Exists" | "DoesNotExist", values }`. */
export interface MetaV1LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** `metav1.LabelSelector` as found in object specs (`spec.selector` of a Deployment, …). */
export interface MetaV1LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: MetaV1LabelSelectorRequirement[];
}

const metaV1Operators: Readonly<Record<string, Operator>> = {
  In: "in",
  NotIn: "notin",
  Exists: "exists",
  DoesNotExist: "!",
};

/**
 * Converts a `metav1.LabelSelector` into a selector (`metav1.LabelSelectorAsSelector`): `null`/`undefined`
 * selects nothing, an empty one everything; `matchLabels` entries become `=` requirements and
 * `matchExpressions` their operators. Every requirement is validated by {@link newRequirement}.
 *
 * @throws {SelectorParseError} `"Foo" is not a valid label selector operator`, or a requirement's errors.
 */
export function labelSelectorAsSelector(ps: MetaV1LabelSelector | null | undefined): LabelSelector {
  if (ps === null || ps === undefined) return sharedNothing;
  const matchLabels = ps.matchLabels ?? {};
  const matchExpressions = ps.matchExpressions ?? [];
  const labelKeys = Object.keys(matchLabels);
  if (labelKeys.length + matchExpressions.length === 0) return sharedEverything;
  const reqs: Requirement[] = [];
  for (const k of labelKeys) reqs.push(newRequirement(k, "=", [matchLabels[k]!]));
  for (const expr of matchExpressions) {
    const op = Object.hasOwn(metaV1Operators, expr.operator) ? metaV1Operators[expr.operator] : undefined;
    if (op === undefined) throw labelError(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
    // Upstream copies the values with append([]string(nil), …): an empty list is a nil slice.
    reqs.push(buildRequirement(expr.key, op, expr.values ?? [], true));
  }
  return sharedEverything.add(...reqs);
}

// ---------------------------------------------------------------------------------------------------------
// Parser (`labels.Parser`): a recursive descent over the scanned tokens.

type ParserContext = "KeyAndOperator" | "Values";

// Thrown inside the parser; turned into a SelectorParseError by parseLabelSelector.
class ParseFailure {
  constructor(
    readonly detail: string,
    readonly pos: number,
  ) {}
}

class Parser {
  private position = 0;

  constructor(private readonly items: readonly ScannedItem[]) {}

  // In a Values context the keywords `in` and `notin` are plain identifiers.
  private adjust(item: ScannedItem, context: ParserContext): ScannedItem {
    if (context === "Values" && (item.tok === "In" || item.tok === "NotIn")) return { ...item, tok: "Identifier" };
    return item;
  }

  private lookahead(context: ParserContext): ScannedItem {
    return this.adjust(this.items[this.position]!, context);
  }

  private consume(context: ParserContext): ScannedItem {
    // Never run past the final EndOfString token.
    const item = this.items[Math.min(this.position, this.items.length - 1)]!;
    this.position++;
    return this.adjust(item, context);
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const next = this.lookahead("Values");
      switch (next.tok) {
        case "Identifier":
        case "DoesNotExist": {
          try {
            requirements.push(this.parseRequirement());
          } catch (e) {
            if (e instanceof ParseFailure) throw new ParseFailure(`unable to parse requirement: ${e.detail}`, e.pos);
            throw e;
          }
          const t = this.consume("Values");
          switch (t.tok) {
            case "EndOfString":
              return requirements;
            case "Comma": {
              const t2 = this.lookahead("Values");
              if (t2.tok !== "Identifier" && t2.tok !== "DoesNotExist")
                throw new ParseFailure(`found '${t2.literal}', expected: identifier after ','`, t2.pos);
              break;
            }
            default:
              throw new ParseFailure(`found '${t.literal}', expected: ',' or 'end of string'`, t.pos);
          }
          break;
        }
        case "EndOfString":
          return requirements;
        default:
          throw new ParseFailure(`found '${next.literal}', expected: !, identifier, or 'end of string'`, next.pos);
      }
    }
  }

  private parseRequirement(): Requirement {
    const start = this.lookahead("Values").pos;
    const { key, operator: inferred } = this.parseKeyAndInferOperator();
    let operator: Operator;
    let values: readonly string[];
    if (inferred === "exists" || inferred === "!") {
      operator = inferred;
      values = [];
    } else {
      operator = this.parseOperator();
      values = operator === "in" || operator === "notin" ? this.parseValues() : this.parseExactValue();
    }
    const problems = requirementProblems(key, operator, values, undefined);
    if (problems.length > 0) throw new ParseFailure(aggregateMessage(problems), start);
    return Object.freeze({ key, operator, values: Object.freeze([...values]) });
  }

  // Reads `[!] KEY`; infers `exists` when the key is followed by `,` or the end.
  private parseKeyAndInferOperator(): { key: string; operator: Operator | undefined } {
    let operator: Operator | undefined;
    let item = this.consume("Values");
    if (item.tok === "DoesNotExist") {
      operator = "!";
      item = this.consume("Values");
    }
    if (item.tok !== "Identifier") throw new ParseFailure(`found '${item.literal}', expected: identifier`, item.pos);
    // Upstream validates the key here with the parser's (nil) path, which prints as "<nil>".
    const keyProblem = labelKeyProblem(item.literal, undefined);
    if (keyProblem !== undefined) throw new ParseFailure(keyProblem, item.pos);
    const t = this.lookahead("Values").tok;
    if ((t === "EndOfString" || t === "Comma") && operator !== "!") operator = "exists";
    return { key: item.literal, operator };
  }

  private parseOperator(): Operator {
    const item = this.consume("KeyAndOperator");
    const op = tokenOperator(item.tok);
    if (op === undefined)
      throw new ParseFailure(`found '${item.literal}', expected: ${binaryOperators.join(", ")}`, item.pos);
    return op;
  }

  // `( v1, v2, … )`: returns the sorted, de-duplicated set; `()` is the set {""}.
  private parseValues(): readonly string[] {
    const open = this.consume("Values");
    if (open.tok !== "OpenPar") throw new ParseFailure(`found '${open.literal}' expected: '('`, open.pos);
    const first = this.lookahead("Values");
    switch (first.tok) {
      case "Identifier":
      case "Comma": {
        const set = this.parseIdentifiersList();
        const close = this.consume("Values");
        if (close.tok !== "ClosedPar") throw new ParseFailure(`found '${first.literal}', expected: ')'`, close.pos);
        return set;
      }
      case "ClosedPar":
        this.consume("Values");
        return [""];
      default:
        throw new ParseFailure(`found '${first.literal}', expected: ',', ')' or identifier`, first.pos);
    }
  }

  // A possibly empty, comma-separated list of possibly empty identifiers, up to (not including) `)`.
  private parseIdentifiersList(): readonly string[] {
    const set = new Set<string>();
    const done = () => [...set].sort(compareStrings);
    for (;;) {
      const item = this.consume("Values");
      switch (item.tok) {
        case "Identifier": {
          set.add(item.literal);
          const next = this.lookahead("Values");
          if (next.tok === "Comma") continue;
          if (next.tok === "ClosedPar") return done();
          throw new ParseFailure(`found '${next.literal}', expected: ',' or ')'`, next.pos);
        }
        case "Comma": {
          if (set.size === 0) set.add(""); // "(,"
          const next = this.lookahead("Values");
          if (next.tok === "ClosedPar") {
            set.add(""); // ",)"
            return done();
          }
          if (next.tok === "Comma") set.add(""); // ",," (the second comma is read by the next turn)
          break;
        }
        default:
          throw new ParseFailure(`found '${item.literal}', expected: ',', or identifier`, item.pos);
      }
    }
  }

  // The single value after `=`, `==`, `!=`, `>` or `<`; nothing before `,` or the end means "".
  private parseExactValue(): readonly string[] {
    const next = this.lookahead("Values");
    if (next.tok === "EndOfString" || next.tok === "Comma") return [""];
    const item = this.consume("Values");
    if (item.tok === "Identifier") return [item.literal];
    throw new ParseFailure(`found '${item.literal}', expected: identifier`, item.pos);
  }
}

function tokenOperator(tok: Token): Operator | undefined {
  switch (tok) {
    case "In":
      return "in";
    case "Equals":
      return "=";
    case "DoubleEquals":
      return "==";
    case "GreaterThan":
      return "gt";
    case "LessThan":
      return "lt";
    case "NotIn":
      return "notin";
    case "NotEquals":
      return "!=";
    default:
      return undefined;
  }
}

/**
 * Parses a label selector (`labels.Parse`). Grammar:
 *
 * ```
 * selector    ::= requirement | requirement "," selector
 * requirement ::= [!] KEY [ set-based | exact-match ]
 * set-based   ::= ("in" | "notin") "(" [ VALUE { "," VALUE } ] ")"
 * exact-match ::= ("=" | "==" | "!=" | ">" | "<") VALUE
 * ```
 *
 * KEY is a qualified name (optional DNS-1123 subdomain prefix ≤ 253 bytes and `/`, then a name ≤ 63 bytes of
 * `[-A-Za-z0-9_.]` starting and ending alphanumeric); VALUE is empty or ≤ 63 bytes of the same form. A bare
 * KEY means "exists", `!KEY` "does not exist". Whitespace (space, tab, CR, LF) may surround tokens. `()` and
 * empty list entries mean the empty value; `in`/`notin` may be used as values. `>`/`<` need an integer.
 * The empty string parses to {@link everything}. Requirements are sorted by key.
 *
 * @throws {SelectorParseError} with upstream's message as `detail` and the token's offset as `position`,
 *   e.g. `unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt`.
 */
export function parseLabelSelector(s: string): LabelSelector {
  if (typeof s !== "string") throw labelError(`label selector must be a string, got ${typeof s}`);
  let reqs: Requirement[];
  try {
    reqs = new Parser(scan(s)).parse();
  } catch (e) {
    if (e instanceof ParseFailure) throw labelError(e.detail, s, e.pos);
    throw e;
  }
  if (reqs.length === 0) return sharedEverything;
  return new InternalSelector(Object.freeze(reqs.sort(byKey)));
}
