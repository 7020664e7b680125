import { goQuote } from "./internal/go-strings.js";

/**
 * A label or field selector (or a requirement built for one) is invalid.
 *
 * `detail` is exactly the text upstream's parser returns as its error (for example
 * `unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt`), which is what
 * kube-apiserver puts into its 400 response. `message` adds the selector text and the offset of the offending
 * token when the error came from parsing a string, e.g. `… (label selector "x nott in (y)", position 2)`.
 *
 * Differences from apimachinery: upstream returns plain `error`s (or a `field.ErrorList` aggregate) without a
 * position; the wording of `detail` is the same.
 */
export class SelectorParseError extends Error {
  override readonly name = "SelectorParseError";
  /** Which selector language failed. */
  readonly kind: "label" | "field";
  /** The upstream error text, without the input and position. */
  readonly detail: string;
  /** The selector text being parsed, when the error came from parsing one. */
  readonly input: string | undefined;
  /** Offset (UTF-16 code units) of the offending token in {@link input}, when known. */
  readonly position: number | undefined;

  constructor(kind: "label" | "field", detail: string, input?: string, position?: number) {
    super(
      input === undefined
        ? detail
        : `${detail} (${kind} selector ${goQuote(input)}${position === undefined ? "" : `, position ${position}`})`,
    );
    this.kind = kind;
    this.detail = detail;
    this.input = input;
    this.position = position;
  }
}
