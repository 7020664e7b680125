/**
 * Kubernetes resource quantities as CEL's `quantity` library sees them (apiserver/pkg/cel/library/quantity.go over
 * apimachinery's `resource.Quantity`): `ParseQuantity`'s grammar — a signed decimal number, then a binary suffix
 * (`Ki` … `Ei`), a decimal one (`n`, `u`, `m`, `k`, `M`, `G`, `T`, `P`, `E`) or an exponent (`e3`, `E-2`) — held
 * exactly as `num × 10^-scale` with bigints, so comparisons, sums and differences are exact as upstream's are.
 *
 * Differences: upstream rounds a value with more than nine fractional digits (nano precision) up; here it is kept.
 */
export interface Quantity {
  /** The value is `num / 10^scale`. */
  readonly num: bigint;
  readonly scale: number;
}

/** The pattern `ParseQuantity`'s error names; what passes it may still fail on its number or suffix. */
const UPSTREAM_REGEX = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const GRAMMAR = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** Removes trailing zero digits of the fraction, so equal values have one form. */
function normal(num: bigint, scale: number): Quantity {
  while (scale > 0 && num % 10n === 0n) {
    num /= 10n;
    scale--;
  }
  return { num, scale };
}

/**
 * `resource.ParseQuantity`; an error message as upstream's: `quantities must match the regular expression …`, or for
 * what matches that pattern but is no quantity, `unable to parse quantity's suffix` (`10Mm`) / `… numeric part`.
 */
export function parseQuantity(s: string): Quantity | Error {
  if (!UPSTREAM_REGEX.test(s))
    return new Error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  const m = GRAMMAR.exec(s);
  if (m === null)
    return new Error(
      /^[+-]?(\d+(\.\d*)?|\.\d+)/.test(s)
        ? "unable to parse quantity's suffix"
        : "unable to parse quantity's numeric part",
    );
  const [, sign, digits, suffix] = m as unknown as [string, string, string, string | undefined];
  const [whole, frac = ""] = digits.split(".");
  let num = BigInt(`${whole || "0"}${frac}`);
  let scale = frac.length;
  if (sign === "-") num = -num;
  if (suffix !== undefined) {
    const bin = BINARY[suffix];
    const exp = DECIMAL[suffix] ?? (bin === undefined ? Number(suffix.slice(1)) : 0);
    if (bin !== undefined) num *= 2n ** BigInt(bin);
    if (exp > 0) num *= 10n ** BigInt(exp);
    else scale -= exp;
  }
  if (scale < 0) {
    num *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return normal(num, scale);
}

function align(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.num * 10n ** BigInt(scale - a.scale), b.num * 10n ** BigInt(scale - b.scale), scale];
}

export function compareQuantity(a: Quantity, b: Quantity): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const [x, y, scale] = align(a, b);
  return normal(x + y, scale);
}

export function negateQuantity(a: Quantity): Quantity {
  return { num: -a.num, scale: a.scale };
}

export function quantityOfInt(n: bigint): Quantity {
  return { num: n, scale: 0 };
}

/** `Quantity.isInteger()`: a whole number that fits an int64. */
export function quantityIsInteger(q: Quantity): boolean {
  return q.scale === 0 && q.num >= INT64_MIN && q.num <= INT64_MAX;
}

/** `Quantity.asInteger()`: the int64, or upstream's error. */
export function quantityAsInteger(q: Quantity): bigint {
  if (!quantityIsInteger(q)) throw new Error("cannot convert value to integer");
  return q.num;
}

export function quantityAsFloat(q: Quantity): number {
  return Number(q.num) / 10 ** q.scale;
}

export function quantitySign(q: Quantity): bigint {
  return q.num < 0n ? -1n : q.num > 0n ? 1n : 0n;
}

/** A canonical text of the value (equal values, equal texts). */
export function quantityKey(q: Quantity): string {
  return `${q.num}e-${q.scale}`;
}

const DECIMAL_SUFFIX: Readonly<Record<number, string>> = {
  [-9]: "n",
  [-6]: "u",
  [-3]: "m",
  0: "",
  3: "k",
  6: "M",
  9: "G",
  12: "T",
  15: "P",
  18: "E",
};
const BINARY_SUFFIXES = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] as const;

/**
 * `Quantity.String()`: the canonical text of a value in the format its text was written in (`resource.Quantity`'s
 * `CanonicalizeBytes`) — a binary-suffixed whole value of at least 1024 in the largest power of 1024 that divides it
 * (`1024Mi` → `1Gi`), anything else in decimal SI with the largest exponent, a multiple of three, that keeps the
 * number whole (`0.5` → `500m`, `2000` → `2k`), a fraction below nano rounded up to `n`. Differs: an exponent text
 * (`1e3`) prints in SI (`1k`), not as upstream's `DecimalExponent` form.
 */
export function quantityString(q: Quantity, binary: boolean): string {
  const sign = q.num < 0n ? "-" : "";
  const abs = q.num < 0n ? -q.num : q.num;
  if (binary && q.scale === 0 && abs >= 1024n) {
    let n = abs;
    let i = 0;
    while (i < BINARY_SUFFIXES.length - 1 && n % 1024n === 0n) {
      n /= 1024n;
      i++;
    }
    return `${sign}${n}${BINARY_SUFFIXES[i]}`;
  }
  // num × 10^-scale as an integer mantissa times 10^exp, exp a multiple of 3 and at least -9 (nano, rounded up).
  let exp = -q.scale;
  let n = abs;
  while (exp % 3 !== 0) {
    n *= 10n;
    exp--;
  }
  if (exp < -9) {
    const div = 10n ** BigInt(-9 - exp);
    n = (n + div - 1n) / div;
    exp = -9;
  }
  while (n !== 0n && n % 1000n === 0n && exp < 18) {
    n /= 1000n;
    exp += 3;
  }
  if (n === 0n) return "0";
  return `${sign}${n}${DECIMAL_SUFFIX[exp]}`;
}

/** Whether a quantity's text uses a binary suffix (`Ki` … `Ei`): its canonical text stays binary. */
export function isBinaryQuantityText(s: string): boolean {
  return /(Ki|Mi|Gi|Ti|Pi|Ei)$/.test(s);
}
