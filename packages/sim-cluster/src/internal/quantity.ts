const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

const QUANTITY = /^([+-]?[0-9.]+)([eE][+-]?[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/;

/**
 * Parses a Kubernetes resource quantity (`100m`, `1.5`, `128Mi`, `1e3`) to its value in milli-units, rounded up as
 * `Quantity.MilliValue` does (`"1"` → 1000, `"100m"` → 100, `"1Ki"` → 1 024 000). Throws a `RangeError` naming the
 * text when it is not a quantity.
 */
export function parseMilli(text: string | number): number {
  if (typeof text === "number") return Math.ceil(text * 1000);
  const m = QUANTITY.exec(text.trim());
  if (m === null || !/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(m[1]!)) {
    throw new RangeError(`quantity ${JSON.stringify(text)} is not a Kubernetes quantity (e.g. 100m, 2, 128Mi)`);
  }
  const base = Number(m[1]) * (m[2] !== undefined ? 10 ** Number(m[2].slice(1)) : 1);
  const suffix = m[3] ?? "";
  const factor = BINARY[suffix] ?? DECIMAL[suffix]!;
  return Math.ceil(base * factor * 1000 - 1e-6);
}
