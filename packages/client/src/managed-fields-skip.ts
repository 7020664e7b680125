// Cuts `"managedFields":[…]` out of a metadata response's JSON text before it is parsed, so the client never builds
// the many small nested objects of the server-side-apply bookkeeping that a metadata informer drops anyway.
//
// No upstream file is ported: client-go decodes the whole body and controller-runtime's
// `cache.TransformStripManagedFields` (pkg/cache/cache.go) drops the field after decoding; this is the same
// result without paying for the decode.

/** The key as a compact JSON encoder (Go's encoding/json, the simulator) writes it. */
const KEY = '"managedFields":';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const COMMA = 0x2c;

/**
 * The index just past the string whose opening quote is at `open - 1`, or -1 if it does not end. Jumps from quote to
 * quote with `indexOf` and counts the backslashes before each one.
 */
function endOfString(text: string, open: number): number {
  let from = open;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let slashes = 0;
    for (let i = q - 1; i >= open && text.charCodeAt(i) === BACKSLASH; i--) slashes++;
    if ((slashes & 1) === 0) return q + 1;
    from = q + 1;
  }
}

/** The index just past the array that opens at `open` (a `[`), or -1 if it does not close. Strings are skipped whole. */
function endOfArray(text: string, open: number): number {
  let depth = 0;
  const n = text.length;
  for (let i = open; i < n; ) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = endOfString(text, i + 1);
      if (i < 0) return -1;
      continue;
    }
    if (c === LBRACKET) depth++;
    else if (c === RBRACKET && --depth === 0) return i + 1;
    i++;
  }
  return -1;
}

/**
 * `text` without any `"managedFields":[…]` member, or `undefined` when it has none to cut or anything looks
 * unexpected (then the caller parses `text` as it is). A member is cut only where the key follows `{` or `,` (so it
 * is an object key, not text inside a string) and its value is an array; the comma that separated it goes with it.
 * Whitespace between the key and the value (pretty-printed JSON) is not recognised: such a body is left whole.
 */
export function cutManagedFields(text: string): string | undefined {
  let at = text.indexOf(KEY);
  if (at < 0) return undefined;
  let out = "";
  let kept = 0;
  let cut = false;
  while (at >= 0) {
    const value = at + KEY.length;
    const before = text.charCodeAt(at - 1);
    if (text.charCodeAt(value) !== LBRACKET || (before !== COMMA && before !== LBRACE)) {
      at = text.indexOf(KEY, value);
      continue;
    }
    const end = endOfArray(text, value);
    if (end < 0) return undefined;
    if (before === COMMA) {
      // `…,"managedFields":[…]` → `…`
      out += text.slice(kept, at - 1);
      kept = end;
    } else {
      // `{"managedFields":[…],…` → `{…`; `{"managedFields":[…]}` → `{}`
      out += text.slice(kept, at);
      kept = text.charCodeAt(end) === COMMA ? end + 1 : end;
    }
    cut = true;
    at = text.indexOf(KEY, end);
  }
  if (!cut) return undefined;
  return out + text.slice(kept);
}

/**
 * `JSON.parse` of a metadata response with every `metadata.managedFields` left out (see {@link cutManagedFields}).
 * Falls back to parsing `text` whole when the cut finds nothing or its result does not parse, so a body the scanner
 * misreads still decodes exactly as before (its `managedFields` then stay, for the informer's transform to drop).
 */
export function parseWithoutManagedFields(text: string): unknown {
  const cut = cutManagedFields(text);
  if (cut !== undefined) {
    try {
      return JSON.parse(cut);
    } catch {
      // Fall through: the plain parse decides, and reports the body's own error if it has one.
    }
  }
  return JSON.parse(text);
}
