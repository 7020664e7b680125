/**
 * Semantic versions as CEL's `semver` library sees them (apiserver/pkg/cel/library/semverlib.go over
 * github.com/blang/semver/v4's `Parse`): `MAJOR.MINOR.PATCH`, then an optional `-` pre-release and `+` build
 * metadata, each dot-separated identifiers of `[0-9A-Za-z-]`; numbers (and numeric pre-release identifiers) without
 * leading zeros. Errors are worded as blang/semver words them (`No Major.Minor.Patch elements found`, …).
 */
export interface Semver {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  /** Pre-release identifiers: numeric ones as bigints. */
  readonly pre: readonly (bigint | string)[];
  readonly build: readonly string[];
}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const UINT64_MAX = 2n ** 64n - 1n;

const leadingZero = (s: string) => s.length > 1 && s[0] === "0";

/** Go's `strconv.ParseUint(s, 10, 64)` of a string of digits. */
function parseUint(s: string): bigint | Error {
  if (s === "") return new Error('strconv.ParseUint: parsing "": invalid syntax');
  const n = BigInt(s);
  return n > UINT64_MAX ? new Error(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`) : n;
}

function versionNumber(s: string, what: "major" | "minor" | "patch"): bigint | Error {
  if (!NUMBERS.test(s)) return new Error(`Invalid character(s) found in ${what} number ${JSON.stringify(s)}`);
  const title = `${what[0]?.toUpperCase()}${what.slice(1)}`;
  if (leadingZero(s)) return new Error(`${title} number must not contain leading zeroes ${JSON.stringify(s)}`);
  return parseUint(s);
}

/** blang/semver's `Parse` (strict: no `v` prefix, all three numbers). */
export function parseSemver(s: string): Semver | Error {
  if (s === "") return new Error("Version string empty");
  const parts = splitN(s, ".", 3);
  if (parts.length !== 3) return new Error("No Major.Minor.Patch elements found");
  const major = versionNumber(parts[0] as string, "major");
  if (major instanceof Error) return major;
  const minor = versionNumber(parts[1] as string, "minor");
  if (minor instanceof Error) return minor;
  let rest = parts[2] as string;
  let build: string[] = [];
  let preText: string[] = [];
  const plus = rest.indexOf("+");
  if (plus !== -1) {
    build = rest.slice(plus + 1).split(".");
    rest = rest.slice(0, plus);
  }
  const dash = rest.indexOf("-");
  if (dash !== -1) {
    preText = rest.slice(dash + 1).split(".");
    rest = rest.slice(0, dash);
  }
  const patch = versionNumber(rest, "patch");
  if (patch instanceof Error) return patch;
  const pre: (bigint | string)[] = [];
  for (const p of preText) {
    if (p === "") return new Error("Prerelease is empty");
    if (NUMBERS.test(p)) {
      if (leadingZero(p))
        return new Error(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(p)}`);
      const n = parseUint(p);
      if (n instanceof Error) return n;
      pre.push(n);
    } else if (ALPHANUM.test(p)) pre.push(p);
    else return new Error(`Invalid character(s) found in prerelease ${JSON.stringify(p)}`);
  }
  for (const b of build) {
    if (b === "") return new Error("Build meta data is empty");
    if (!ALPHANUM.test(b)) return new Error(`Invalid character(s) found in build meta data ${JSON.stringify(b)}`);
  }
  return { major, minor, patch, pre, build };
}

/** Go's `strings.SplitN(s, sep, n)`. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const at = rest.indexOf(sep);
    if (at === -1) break;
    out.push(rest.slice(0, at));
    rest = rest.slice(at + sep.length);
  }
  out.push(rest);
  return out;
}

/**
 * semverlib.go's `normalizeAndParse` (`semver(s, true)`, `isSemver(s, true)`): drops a leading `v`, leading zeros
 * of each of the three parts, and fills a missing minor or patch with 0 (a short version with a pre-release or build
 * part is an error).
 */
export function normalizeAndParseSemver(s: string): Semver | Error {
  const parts = splitN(s.startsWith("v") ? s.slice(1) : s, ".", 3).map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, "");
    return t === "" || !/^[0-9]/.test(t) ? `0${t}` : t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1] as string))
      return new Error("short version cannot contain PreRelease/Build meta data");
    while (parts.length < 3) parts.push("0");
  }
  return parseSemver(parts.join("."));
}

const cmp = (a: bigint | string, b: bigint | string): number => (a < b ? -1 : a > b ? 1 : 0);

/** blang/semver's `Version.Compare`: numbers, then pre-release precedence (semver.org §11); build metadata ignored. */
export function compareSemver(a: Semver, b: Semver): number {
  const c = cmp(a.major, b.major) || cmp(a.minor, b.minor) || cmp(a.patch, b.patch);
  if (c !== 0) return c;
  if (a.pre.length === 0 || b.pre.length === 0)
    return b.pre.length - a.pre.length === 0 ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i] as bigint | string;
    const y = b.pre[i] as bigint | string;
    if (typeof x !== typeof y) return typeof x === "bigint" ? -1 : 1;
    const d = cmp(x, y);
    if (d !== 0) return d;
  }
  return cmp(BigInt(a.pre.length), BigInt(b.pre.length));
}

/** A canonical text of the version's precedence (equal versions — `Equal` ignores build metadata — equal texts). */
export function semverKey(v: Semver): string {
  return `${v.major}.${v.minor}.${v.patch}${v.pre.length > 0 ? `-${v.pre.join(".")}` : ""}`;
}
