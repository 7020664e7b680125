// klog's text format: the header kube-apiserver puts before every message (`I1125 20:25:00.123456    1234
// httplog.go:134] …`) and the structured `InfoS` body (`"HTTP" verb="LIST" URI="/api/v1/pods" … resp=200`).

/** One klog text line split into its header fields and message. */
export interface KlogHeader {
  /** `I`, `W`, `E` or `F`. */
  readonly severity: string;
  /** `MMDD hh:mm:ss.uuuuuu`, as written (klog's header has no year). */
  readonly time: string;
  readonly pid: number;
  /** `file.go:line` of the call. */
  readonly caller: string;
  /** Everything after `] `. */
  readonly message: string;
}

const HEADER = /^([IWEF])(\d{4} \d{2}:\d{2}:\d{2}\.\d{6})\s+(\d+) ([^\]\s]+:\d+)\] ?(.*)$/s;

/** Splits a klog text line (`Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`); undefined when it has no such header. */
export function parseKlogHeader(line: string): KlogHeader | undefined {
  const m = HEADER.exec(line);
  if (m === null) return undefined;
  return { severity: m[1] ?? "", time: m[2] ?? "", pid: Number(m[3]), caller: m[4] ?? "", message: m[5] ?? "" };
}

/** A structured klog message: its quoted message and its key/value pairs (strings unquoted, bare values as text). */
export interface KlogStructured {
  readonly msg: string;
  readonly values: ReadonlyMap<string, string>;
  /** Keys whose value was a bare (unquoted) token: numbers, booleans. */
  readonly bare: ReadonlySet<string>;
  /** A key whose value is klog's multi-line form (`key=<` and the lines up to ` >`) that this line opens. */
  readonly openMultiline?: string;
}

/**
 * Parses klog's `InfoS` text body: a Go-quoted message followed by `key=value` pairs, each value Go-quoted or a bare
 * token. A value `<` at the end of the line opens klog's multi-line form (reported as `openMultiline`; its lines
 * follow). Returns a string describing the first problem when the body does not have that form.
 */
export function parseKlogStructured(body: string): KlogStructured | string {
  const first = readQuoted(body, 0);
  if (typeof first === "string") return `the message is not a quoted string (${first})`;
  const values = new Map<string, string>();
  const bare = new Set<string>();
  let i = first.end;
  while (i < body.length) {
    while (body[i] === " ") i++;
    if (i >= body.length) break;
    const eq = body.indexOf("=", i);
    const key = eq < 0 ? "" : body.slice(i, eq);
    if (eq < 0 || key === "" || /[\s"]/.test(key)) return `expected key=value at column ${i + 1}`;
    i = eq + 1;
    if (body[i] === '"') {
      const q = readQuoted(body, i);
      if (typeof q === "string") return `value of ${key}: ${q}`;
      values.set(key, q.value);
      i = q.end;
    } else {
      let end = body.indexOf(" ", i);
      if (end < 0) end = body.length;
      const token = body.slice(i, end);
      if (token === "<" && end === body.length) return { msg: first.value, values, bare, openMultiline: key };
      values.set(key, token);
      bare.add(key);
      i = end;
    }
  }
  return { msg: first.value, values, bare };
}

const ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  '"': '"',
  "\\": "\\",
  "'": "'",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
};

/**
 * Reads a Go double-quoted string literal (as `%q` writes it) starting at `at`: its value and the index after the
 * closing quote, or a string naming the problem.
 */
export function readQuoted(s: string, at: number): { value: string; end: number } | string {
  if (s[at] !== '"') return `expected '"' at column ${at + 1}`;
  let out = "";
  let i = at + 1;
  while (i < s.length) {
    const c = s[i];
    if (c === '"') return { value: out, end: i + 1 };
    if (c !== "\\") {
      out += c;
      i++;
      continue;
    }
    const e = s[i + 1] ?? "";
    const simple = ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      i += 2;
      continue;
    }
    const width = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    const hex = s.slice(i + 2, i + 2 + width);
    if (width === 0 || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width)
      return `bad escape \\${e} at column ${i + 1}`;
    out += width === 2 ? String.fromCharCode(Number.parseInt(hex, 16)) : String.fromCodePoint(Number.parseInt(hex, 16));
    i += 2 + width;
  }
  return `unterminated string starting at column ${at + 1}`;
}
