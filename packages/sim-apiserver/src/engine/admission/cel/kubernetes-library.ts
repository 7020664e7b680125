import {
  type CelFunc,
  type CelList,
  CelScalar,
  type CelValue,
  celFunc,
  celList,
  celMap,
  celMethod,
  isCelList,
  isCelMap,
  isCelUint,
  listType,
} from "@bufbuild/cel";
import { MAX_FORMAT_REGEX_SIZE, NAMED_FORMATS, type NamedFormat } from "./format.js";
import {
  type CIDR,
  cidrContainsCIDR,
  cidrContainsIP,
  cidrString,
  type IPAddr,
  ipString,
  isGlobalUnicast,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  isUnspecified,
  maskedCIDR,
  parseCIDR,
  parseIP,
} from "./ip.js";
import { mustOpaque, opaque, opaqueValue, optionalOf } from "./opaque.js";
import {
  addQuantity,
  compareQuantity,
  negateQuantity,
  parseQuantity,
  type Quantity,
  quantityAsFloat,
  quantityAsInteger,
  quantityIsInteger,
  quantityKey,
  quantityOfInt,
  quantitySign,
} from "./quantity.js";
import { compareSemver, normalizeAndParseSemver, parseSemver, type Semver, semverKey } from "./semver.js";
import { type ParsedURL, parseURL, urlHostname, urlPort, urlQuery, urlString } from "./url.js";

export { MAX_FORMAT_REGEX_SIZE };

const { STRING, BOOL, INT, DOUBLE, DYN } = CelScalar;
const STRINGS = listType(STRING);

function orThrow<T>(v: T | Error): T {
  if (v instanceof Error) throw v;
  return v;
}

const urlValue = (u: ParsedURL) => opaque("URL", urlString(u), u);
const quantityValue = (q: Quantity) => opaque("Quantity", quantityKey(q), q);
const semverValue = (v: Semver) => opaque("Semver", semverKey(v), v);
const ipValue = (a: IPAddr) => opaque("IP", ipString(a), a);
const cidrValue = (c: CIDR) => opaque("CIDR", cidrString(c), c);
const formatValue = (key: string, f: NamedFormat) => opaque("Format", key, f);

/** A Quantity argument, or an int one as a Quantity (`add(int)`, `sub(int)`). */
function quantityArg(v: CelValue, fn: string): Quantity {
  return typeof v === "bigint" ? quantityOfInt(v) : mustOpaque<Quantity>(v, "Quantity", fn);
}

/** An IP argument or a string parsed as one (`containsIP(string)`). */
function ipArg(v: CelValue, fn: string): IPAddr {
  return typeof v === "string" ? orThrow(parseIP(v)) : mustOpaque<IPAddr>(v, "IP", fn);
}

function cidrArg(v: CelValue, fn: string): CIDR {
  return typeof v === "string" ? orThrow(parseCIDR(v)) : mustOpaque<CIDR>(v, "CIDR", fn);
}

/** `string.find`/`findAll` (apiserver/pkg/cel/library/regex.go): the first match, or up to `limit` (< 0: all). */
function findAll(s: string, re: string, limit: bigint): string[] {
  const out: string[] = [];
  if (limit === 0n) return out;
  const g = new RegExp(re, "gu");
  for (const m of s.matchAll(g)) {
    out.push(m[0]);
    if (limit > 0n && BigInt(out.length) >= limit) break;
    if (m[0] === "") g.lastIndex++;
  }
  return out;
}

/**
 * A library's constructor and its test (`url`/`isURL`, `quantity`/`isQuantity`, `ip`/`isIP`, …): the constructor
 * gives the parsed value or fails with the parse error, the test says whether the text parses.
 */
function constructorAndTest<T>(
  name: string,
  test: string,
  parse: (s: string) => T | Error,
  value: (v: T) => CelValue,
): CelFunc[] {
  return [
    celFunc(name, [STRING], DYN, (s) => value(orThrow(parse(s)))),
    celFunc(test, [STRING], BOOL, (s) => !(parse(s) instanceof Error)),
  ];
}

/** The regex library (regex.go). */
const REGEX: CelFunc[] = [
  celMethod("find", STRING, [STRING], STRING, function (re) {
    return new RegExp(re, "u").exec(this)?.[0] ?? "";
  }),
  celMethod("findAll", STRING, [STRING], STRINGS, function (re) {
    return celList(findAll(this, re, -1n));
  }),
  celMethod("findAll", STRING, [STRING, INT], STRINGS, function (re, n) {
    return celList(findAll(this, re, n));
  }),
];

const urlGetter = (name: string, get: (u: ParsedURL) => string): CelFunc =>
  celMethod(name, DYN, [], STRING, function () {
    return get(mustOpaque<ParsedURL>(this, "URL", name));
  });

/** The URL library (urls.go). */
const URLS: CelFunc[] = [
  ...constructorAndTest("url", "isURL", parseURL, urlValue),
  urlGetter("getScheme", (u) => u.scheme),
  urlGetter("getHost", (u) => u.host),
  urlGetter("getHostname", urlHostname),
  urlGetter("getPort", urlPort),
  urlGetter("getEscapedPath", (u) => u.path),
  celMethod("getQuery", DYN, [], DYN, function () {
    const q = urlQuery(mustOpaque<ParsedURL>(this, "URL", "getQuery"));
    return celMap(new Map([...q].map(([k, vs]) => [k, celList(vs)])));
  }),
];

const quantityMethod = <R extends typeof BOOL | typeof INT | typeof DOUBLE | typeof DYN>(
  name: string,
  result: R,
  f: (q: Quantity) => boolean | bigint | number | CelValue,
): CelFunc =>
  celMethod(name, DYN, [], result, function () {
    return f(mustOpaque<Quantity>(this, "Quantity", name)) as never;
  });

const quantityBinary = <R extends typeof BOOL | typeof INT | typeof DYN>(
  name: string,
  result: R,
  f: (a: Quantity, b: Quantity) => boolean | bigint | CelValue,
): CelFunc =>
  celMethod(name, DYN, [DYN], result, function (other) {
    return f(mustOpaque<Quantity>(this, "Quantity", name), quantityArg(other, name)) as never;
  });

/** The quantity library (quantity.go). */
const QUANTITIES: CelFunc[] = [
  ...constructorAndTest("quantity", "isQuantity", parseQuantity, quantityValue),
  quantityMethod("isInteger", BOOL, quantityIsInteger),
  quantityMethod("asInteger", INT, quantityAsInteger),
  quantityMethod("asApproximateFloat", DOUBLE, quantityAsFloat),
  quantityMethod("sign", INT, quantitySign),
  quantityBinary("add", DYN, (a, b) => quantityValue(addQuantity(a, b))),
  quantityBinary("sub", DYN, (a, b) => quantityValue(addQuantity(a, negateQuantity(b)))),
];

/**
 * `isLessThan`, `isGreaterThan` and `compareTo` of a Semver (semverlib.go) or a Quantity (quantity.go): one
 * @bufbuild/cel overload on `dyn` for both, dispatching on the receiver.
 */
const comparison = <R extends typeof BOOL | typeof INT>(
  name: string,
  result: R,
  f: (c: number) => boolean | bigint,
): CelFunc =>
  celMethod(name, DYN, [DYN], result, function (other) {
    const v = opaqueValue<Semver>(this, "Semver");
    if (v !== undefined) return f(compareSemver(v, mustOpaque<Semver>(other, "Semver", name))) as never;
    return f(compareQuantity(mustOpaque<Quantity>(this, "Quantity", name), quantityArg(other, name))) as never;
  });

const COMPARISONS: CelFunc[] = [
  comparison("isLessThan", BOOL, (c) => c < 0),
  comparison("isGreaterThan", BOOL, (c) => c > 0),
  comparison("compareTo", INT, (c) => BigInt(c)),
];

const semverPart = (name: "major" | "minor" | "patch"): CelFunc =>
  celMethod(name, DYN, [], INT, function () {
    return BigInt.asIntN(64, mustOpaque<Semver>(this, "Semver", name)[name]);
  });

/** The semver library (semverlib.go, version 1 as Kubernetes 1.34 has it: with the `normalize` overloads). */
const SEMVERS: CelFunc[] = [
  celFunc("semver", [STRING], DYN, (s) => semverValue(orThrow(parseSemver(s)))),
  celFunc("semver", [STRING, BOOL], DYN, (s, n) =>
    semverValue(orThrow(n ? normalizeAndParseSemver(s) : parseSemver(s))),
  ),
  celFunc("isSemver", [STRING], BOOL, (s) => !(parseSemver(s) instanceof Error)),
  celFunc(
    "isSemver",
    [STRING, BOOL],
    BOOL,
    (s, n) => !((n ? normalizeAndParseSemver(s) : parseSemver(s)) instanceof Error),
  ),
  semverPart("major"),
  semverPart("minor"),
  semverPart("patch"),
];

const ipPredicate = (name: string, f: (a: IPAddr) => boolean): CelFunc =>
  celMethod(name, DYN, [], BOOL, function () {
    return f(mustOpaque<IPAddr>(this, "IP", name));
  });

/** The IP and CIDR libraries (ip.go, cidr.go). */
const NETWORK: CelFunc[] = [
  ...constructorAndTest("ip", "isIP", parseIP, ipValue),
  celFunc("ip.isCanonical", [STRING], BOOL, (s) => ipString(orThrow(parseIP(s))) === s),
  celMethod("family", DYN, [], INT, function () {
    return BigInt(mustOpaque<IPAddr>(this, "IP", "family").family);
  }),
  ipPredicate("isUnspecified", isUnspecified),
  ipPredicate("isLoopback", isLoopback),
  ipPredicate("isLinkLocalMulticast", isLinkLocalMulticast),
  ipPredicate("isLinkLocalUnicast", isLinkLocalUnicast),
  ipPredicate("isGlobalUnicast", isGlobalUnicast),
  ...constructorAndTest("cidr", "isCIDR", parseCIDR, cidrValue),
  celMethod("containsIP", DYN, [DYN], BOOL, function (a) {
    return cidrContainsIP(mustOpaque<CIDR>(this, "CIDR", "containsIP"), ipArg(a, "containsIP"));
  }),
  celMethod("containsCIDR", DYN, [DYN], BOOL, function (c) {
    return cidrContainsCIDR(mustOpaque<CIDR>(this, "CIDR", "containsCIDR"), cidrArg(c, "containsCIDR"));
  }),
  celMethod("ip", DYN, [], DYN, function () {
    return ipValue(mustOpaque<CIDR>(this, "CIDR", "ip").ip);
  }),
  celMethod("masked", DYN, [], DYN, function () {
    return cidrValue(maskedCIDR(mustOpaque<CIDR>(this, "CIDR", "masked")));
  }),
  celMethod("prefixLength", DYN, [], INT, function () {
    return BigInt(mustOpaque<CIDR>(this, "CIDR", "prefixLength").prefix);
  }),
  // string(ip) and string(cidr): their canonical texts.
  celFunc("string", [DYN], STRING, (v) => {
    const a = opaqueValue<IPAddr>(v, "IP");
    if (a !== undefined) return ipString(a);
    return cidrString(mustOpaque<CIDR>(v, "CIDR", "string"));
  }),
];

/** The format library (format.go) and the `optional` results it gives. */
const FORMATS: CelFunc[] = [
  ...Object.entries(NAMED_FORMATS).map(([key, f]) => celFunc(`format.${key}`, [], DYN, () => formatValue(key, f))),
  celFunc("format.named", [STRING], DYN, (name) => {
    const f = Object.hasOwn(NAMED_FORMATS, name) ? NAMED_FORMATS[name] : undefined;
    return optionalOf(f === undefined ? undefined : formatValue(name, f), name);
  }),
  celMethod("validate", DYN, [STRING], DYN, function (s) {
    const errs = mustOpaque<NamedFormat>(this, "Format", "validate").validate(s);
    return optionalOf(errs.length === 0 ? undefined : celList(errs), errs.join("\n"));
  }),
  celMethod("hasValue", DYN, [], BOOL, function () {
    return opaqueValue(this, "optional") !== undefined;
  }),
  celMethod("orValue", DYN, [DYN], DYN, function (fallback) {
    return opaqueValue<CelValue>(this, "optional") ?? fallback;
  }),
  celMethod("value", DYN, [], DYN, function () {
    const v = opaqueValue<CelValue>(this, "optional");
    if (v === undefined) throw new Error("optional.none() dereference");
    return v;
  }),
];

/** CEL equality of two values (numbers across int, uint and double; lists and maps element-wise). */
function celEquals(a: CelValue, b: CelValue): boolean {
  const num = (v: CelValue): number | bigint | undefined =>
    typeof v === "bigint" || typeof v === "number" ? v : isCelUint(v) ? v.value : undefined;
  const x = num(a);
  const y = num(b);
  // biome-ignore lint/suspicious/noDoubleEquals: CEL compares int, uint and double by value, as == on bigint/number does
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && x == y;
  if (isCelList(a) || isCelList(b)) {
    if (!isCelList(a) || !isCelList(b) || a.size !== b.size) return false;
    const xs = [...a];
    const ys = [...b];
    return xs.every((v, i) => celEquals(v, ys[i] as CelValue));
  }
  if (isCelMap(a) || isCelMap(b)) {
    if (!isCelMap(a) || !isCelMap(b) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      const w = b.get(k);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  return a === b;
}

const containsAll = (a: CelList, b: CelList): boolean => {
  const xs = [...a];
  for (const y of b) if (!xs.some((x) => celEquals(x, y))) return false;
  return true;
};

/** cel-go's sets extension (`ext.Sets()`, in Kubernetes' base environment): list-as-set tests. */
const SETS: CelFunc[] = [
  celFunc("sets.contains", [listType(DYN), listType(DYN)], BOOL, (a, b) => containsAll(a, b)),
  celFunc("sets.equivalent", [listType(DYN), listType(DYN)], BOOL, (a, b) => containsAll(a, b) && containsAll(b, a)),
  celFunc("sets.intersects", [listType(DYN), listType(DYN)], BOOL, (a, b) => {
    const xs = [...a];
    for (const y of b) if (xs.some((x) => celEquals(x, y))) return true;
    return false;
  }),
];

/**
 * One library of Kubernetes' CEL environment as the simulator carries it: the functions @bufbuild/cel evaluates, the
 * declarations @marcbachmann/cel-js checks them with (upstream's signatures and type names), the object types it
 * brings (all compare with `==`, as upstream's implement `Equal`) and the namespace its qualified functions hang on
 * (`format.dns1123Label()`, `ip.isCanonical(s)`: cel-js has no qualified function names, so they are methods of a
 * namespace variable of type `kubernetes.namespace.<name>`).
 */
interface KubernetesLibrary {
  /** Where upstream defines it (apiserver/pkg/cel/library, or cel-go's ext). */
  readonly source: string;
  readonly functions: readonly CelFunc[];
  readonly declarations: readonly string[];
  readonly types?: readonly string[];
  readonly namespace?: string;
}

/** The table of {@link KubernetesLibrary}: lists and the strings extension are evaluated in library.ts. */
const LIBRARIES: readonly KubernetesLibrary[] = [
  {
    source: "lists.go",
    functions: [],
    declarations: [
      "list.isSorted(): bool",
      "list.sum(): dyn",
      "list.min(): dyn",
      "list.max(): dyn",
      "list.indexOf(dyn): int",
      "list.lastIndexOf(dyn): int",
    ],
  },
  {
    source: "cel-go ext/strings.go (version 2), what cel-js does not declare itself",
    functions: [],
    declarations: [
      "string.charAt(int): string",
      "string.replace(string, string): string",
      "string.replace(string, string, int): string",
      "string.format(list): string",
      "kubernetes.namespace.strings.quote(string): string",
    ],
    namespace: "strings",
  },
  {
    source: "regex.go",
    functions: REGEX,
    declarations: [
      "string.find(string): string",
      "string.findAll(string): list<string>",
      "string.findAll(string, int): list<string>",
    ],
  },
  {
    source: "urls.go",
    functions: URLS,
    declarations: [
      "url(string): kubernetes.URL",
      "isURL(string): bool",
      ...["getScheme", "getHost", "getHostname", "getPort", "getEscapedPath"].map(
        (g) => `kubernetes.URL.${g}(): string`,
      ),
      "kubernetes.URL.getQuery(): map<string, list<string>>",
    ],
    types: ["kubernetes.URL"],
  },
  {
    source: "quantity.go",
    functions: [...QUANTITIES, ...COMPARISONS],
    declarations: [
      "quantity(string): kubernetes.Quantity",
      "isQuantity(string): bool",
      "kubernetes.Quantity.isInteger(): bool",
      "kubernetes.Quantity.asInteger(): int",
      "kubernetes.Quantity.asApproximateFloat(): double",
      "kubernetes.Quantity.sign(): int",
      ...["add", "sub"].flatMap((op) => [
        `kubernetes.Quantity.${op}(kubernetes.Quantity): kubernetes.Quantity`,
        `kubernetes.Quantity.${op}(int): kubernetes.Quantity`,
      ]),
      ...comparisonDeclarations("kubernetes.Quantity"),
    ],
    types: ["kubernetes.Quantity"],
  },
  {
    source: "semverlib.go",
    functions: SEMVERS,
    declarations: [
      "semver(string): kubernetes.Semver",
      "semver(string, bool): kubernetes.Semver",
      "isSemver(string): bool",
      "isSemver(string, bool): bool",
      ...["major", "minor", "patch"].map((part) => `kubernetes.Semver.${part}(): int`),
      ...comparisonDeclarations("kubernetes.Semver"),
    ],
    types: ["kubernetes.Semver"],
  },
  {
    source: "ip.go, cidr.go",
    functions: NETWORK,
    declarations: [
      "ip(string): net.IP",
      "isIP(string): bool",
      "kubernetes.namespace.ip.isCanonical(string): bool",
      "string(net.IP): string",
      "net.IP.family(): int",
      ...["isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast"].map(
        (p) => `net.IP.${p}(): bool`,
      ),
      "cidr(string): net.CIDR",
      "isCIDR(string): bool",
      "string(net.CIDR): string",
      ...["containsIP(net.IP)", "containsIP(string)", "containsCIDR(net.CIDR)", "containsCIDR(string)"].map(
        (c) => `net.CIDR.${c}: bool`,
      ),
      "net.CIDR.ip(): net.IP",
      "net.CIDR.masked(): net.CIDR",
      "net.CIDR.prefixLength(): int",
    ],
    types: ["net.IP", "net.CIDR"],
    namespace: "ip",
  },
  {
    source: "format.go",
    functions: FORMATS,
    declarations: [
      ...Object.keys(NAMED_FORMATS).map((k) => `kubernetes.namespace.format.${k}(): kubernetes.NamedFormat`),
      "kubernetes.namespace.format.named(string): optional<kubernetes.NamedFormat>",
      "kubernetes.NamedFormat.validate(string): optional<list<string>>",
    ],
    types: ["kubernetes.NamedFormat"],
    namespace: "format",
  },
  {
    source: "cel-go ext/sets.go",
    functions: SETS,
    declarations: ["contains", "equivalent", "intersects"].map(
      (f) => `kubernetes.namespace.sets.${f}(list, list): bool`,
    ),
    namespace: "sets",
  },
];

/** `isLessThan`, `isGreaterThan` and `compareTo` of a type that orders (Quantity, Semver). */
function comparisonDeclarations(type: string): string[] {
  return [
    `${type}.isLessThan(${type}): bool`,
    `${type}.isGreaterThan(${type}): bool`,
    `${type}.compareTo(${type}): int`,
  ];
}

/** Kubernetes' CEL libraries beyond lists: regex, URLs, quantities, semantic versions, IPs and CIDRs, named formats; cel-go's sets. */
export const KUBERNETES_LIBRARIES: readonly CelFunc[] = LIBRARIES.flatMap((l) => l.functions);

/** The checker's declarations of every library (with lists and the strings-extension functions cel-js lacks). */
export const KUBERNETES_DECLARATIONS: readonly string[] = LIBRARIES.flatMap((l) => l.declarations);

/** The types whose values compare with `==`/`!=` (upstream's types implement `Equal`). */
export const EQUATABLE_TYPES: readonly string[] = LIBRARIES.flatMap((l) => l.types ?? []);

/** The namespace variables, by name, with their types. */
export const NAMESPACES: Readonly<Record<string, string>> = Object.fromEntries(
  LIBRARIES.flatMap((l) => (l.namespace === undefined ? [] : [[l.namespace, `kubernetes.namespace.${l.namespace}`]])),
);

/** Every type the checker is told of: the libraries' object types and the namespaces'. */
export const KUBERNETES_TYPES: readonly string[] = [...EQUATABLE_TYPES, ...Object.values(NAMESPACES)];
