import { goQuote } from "./go-strings.js";

/**
 * Formats one `field.Error` the way Go's `(*field.Error).Error()` does, for the errors that selectors produce:
 * `<path>: Invalid value: <bad value>: <detail>`. Strings are `%q`-quoted; other values are JSON, as upstream
 * renders slices. A `path` of `undefined` prints `<nil>`, as a nil `*field.Path` does.
 */
export function invalidValueError(path: string | undefined, badValue: unknown, detail: string): string {
  const shown = typeof badValue === "string" ? goQuote(badValue) : JSON.stringify(badValue ?? null);
  return `${path ?? "<nil>"}: Invalid value: ${shown}${detail === "" ? "" : `: ${detail}`}`;
}

/** `field.NotSupported(...)`.Error(): `<path>: Unsupported value: "<v>": supported values: "a", "b"`. */
export function notSupportedError(path: string, badValue: string, supported: readonly string[]): string {
  const detail = supported.length > 0 ? `: supported values: ${supported.map(goQuote).join(", ")}` : "";
  return `${path}: Unsupported value: ${goQuote(badValue)}${detail}`;
}

/**
 * `utilerrors.NewAggregate(errs).Error()`: nothing for none, the message itself for one, otherwise the distinct
 * messages in order inside `[…]`, separated by `, `.
 */
export function aggregateMessage(messages: readonly string[]): string {
  if (messages.length === 0) return "";
  if (messages.length === 1) return messages[0]!;
  const seen = new Set<string>();
  for (const m of messages) seen.add(m);
  if (seen.size === 1) return messages[0]!;
  return `[${[...seen].join(", ")}]`;
}
