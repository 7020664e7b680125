/**
 * URLs as Kubernetes' CEL `url` library sees them (apiserver/pkg/cel/library/urls.go over Go's `net/url.Parse`): an
 * absolute URI (`scheme:` …) or an absolute path (`/…`), split RFC 3986's way into scheme, authority (`host` with
 * its port), path and query, without normalizing (Go keeps the case of the host and a default port, as here).
 *
 * Differences: Go's finer checks (invalid percent-escapes in the host, control characters) are reduced to rejecting
 * whitespace and control characters anywhere and a `%` not followed by two hex digits.
 */
export interface ParsedURL {
  readonly scheme: string;
  /** The authority's host and port (`example.com:80`, `[::1]:80`). */
  readonly host: string;
  readonly path: string;
  readonly rawQuery: string;
}

const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#.*)?$/;
const PATH = /^(\/[^?#]*)(?:\?([^#]*))?(?:#.*)?$/;

/** `url.Parse` as the library calls it; an error as the library words it. */
export function parseURL(s: string): ParsedURL | Error {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rejects
  if (/[\s\u0000-\u001f\u007f]/.test(s) || /%(?![0-9A-Fa-f]{2})/.test(s))
    return new Error(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URL`);
  const a = ABSOLUTE.exec(s);
  if (a !== null) {
    const userinfoAt = (a[2] ?? "").lastIndexOf("@");
    return {
      scheme: a[1] as string,
      host: (a[2] ?? "").slice(userinfoAt + 1),
      path: a[3] ?? "",
      rawQuery: a[4] ?? "",
    };
  }
  const p = PATH.exec(s);
  if (p !== null) return { scheme: "", host: "", path: p[1] as string, rawQuery: p[2] ?? "" };
  return new Error("URL must be an absolute path or an absolute URI");
}

/** `URL.Hostname()`: the host without its port and without an IPv6 literal's brackets. */
export function urlHostname(u: ParsedURL): string {
  if (u.host.startsWith("[")) {
    const end = u.host.indexOf("]");
    return end === -1 ? u.host.slice(1) : u.host.slice(1, end);
  }
  const colon = u.host.indexOf(":");
  return colon === -1 ? u.host : u.host.slice(0, colon);
}

/** `URL.Port()`: the digits after the host's last colon, if any. */
export function urlPort(u: ParsedURL): string {
  const start = u.host.startsWith("[") ? u.host.indexOf("]") + 1 : 0;
  const colon = u.host.indexOf(":", start);
  if (colon === -1) return "";
  const port = u.host.slice(colon + 1);
  return /^\d*$/.test(port) ? port : "";
}

/** `URL.Query()`: each key's values in their order, keys and values unescaped (`+` a space). */
export function urlQuery(u: ParsedURL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (u.rawQuery === "") return out;
  const unescapeQuery = (x: string): string => {
    try {
      return decodeURIComponent(x.replace(/\+/g, " "));
    } catch {
      return x;
    }
  };
  for (const pair of u.rawQuery.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const k = unescapeQuery(eq === -1 ? pair : pair.slice(0, eq));
    const v = eq === -1 ? "" : unescapeQuery(pair.slice(eq + 1));
    const list = out.get(k) ?? [];
    list.push(v);
    out.set(k, list);
  }
  return out;
}

/** The canonical text of a parsed URL (equal URLs, equal texts — Go's `URL.String()` of the parts kept). */
export function urlString(u: ParsedURL): string {
  const authority = u.scheme === "" && u.host === "" ? "" : `${u.scheme}://${u.host}`;
  return `${authority}${u.path}${u.rawQuery === "" ? "" : `?${u.rawQuery}`}`;
}
