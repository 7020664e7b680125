/**
 * Small helpers that reproduce Go string behaviour where it shows in messages or ordering: Go's `%q`
 * quoting, byte-wise (code point) string order, and UTF-8 byte length (Go's `len(string)`).
 */

const namedEscapes: Readonly<Record<number, string>> = {
  7: "\\a",
  8: "\\b",
  12: "\\f",
  10: "\\n",
  13: "\\r",
  9: "\\t",
  11: "\\v",
  92: "\\\\",
  34: '\\"',
};

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/**
 * Go's `strconv.Quote` / `%q` for a string: double quotes, C-style escapes for control characters,
 * `\xNN` for other ASCII controls, `\uNNNN` for unpaired surrogates and Unicode format/control characters.
 * Printable non-ASCII characters are kept as they are (Go keeps graphic runes).
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const named = namedEscapes[cp];
    if (named !== undefined) out += named;
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp >= 0xd800 && cp <= 0xdfff)
      out += "\\ufffd"; // invalid UTF-8 in Go prints as U+FFFD escape
    else if ((cp >= 0x80 && cp < 0xa0) || cp === 0xad || (cp >= 0x2028 && cp <= 0x2029) || cp === 0xfeff)
      out += `\\u${hex(cp, 4)}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's `len(s)`: the number of UTF-8 bytes of `s`. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/**
 * Orders strings as Go's `<` does on their UTF-8 bytes, which is code point order. (JavaScript's default
 * `<` compares UTF-16 code units, which differs only for astral characters versus U+E000..U+FFFF.)
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** A sorted copy of `values` in Go string order; returns `values` itself when it is already sorted. */
export function sortedStrings(values: readonly string[]): readonly string[] {
  for (let i = 1; i < values.length; i++) {
    if (compareStrings(values[i - 1]!, values[i]!) > 0) return [...values].sort(compareStrings);
  }
  return values;
}

/**
 * Go's `strconv.ParseInt(s, 10, 64)` as a predicate plus value: an optional sign followed by decimal digits,
 * within the int64 range. Returns `undefined` when Go would return an error.
 */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  if (v > 9223372036854775807n || v < -9223372036854775808n) return undefined;
  return v;
}
