import { type CelMap, type CelValue, celMap, isCelMap } from "@bufbuild/cel";

/**
 * Kubernetes' CEL object types (apiserver/pkg/cel `URL`, `Quantity`, `Semver`, `IP`, `CIDR`, `Format`, and cel-go's `optional`)
 * as @bufbuild/cel values. @bufbuild/cel has no opaque types, so such a value is a one-entry CEL map — its key the
 * type's name with an `@` (no schema property starts with one), its value a canonical text — with the parsed value
 * attached out of CEL's sight. Two values are then `==` exactly when their canonical texts are, as upstream's
 * `Equal` of each type compares them. The checker (typecheck.ts) declares the real types, so a rule cannot reach
 * into the map.
 */
const PAYLOAD = Symbol("kubernetes CEL object");

export type OpaqueKind = "URL" | "Quantity" | "Semver" | "IP" | "CIDR" | "Format" | "optional";

interface Opaque<T> {
  readonly kind: OpaqueKind;
  readonly value: T;
}

export function opaque<T>(kind: OpaqueKind, canonical: string, value: T): CelMap {
  const m = celMap(new Map([[`@${kind}`, canonical]]));
  (m as unknown as Record<symbol, Opaque<T>>)[PAYLOAD] = { kind, value };
  return m;
}

/** The parsed value of an opaque `kind`, or `undefined` when `v` is something else. */
export function opaqueValue<T>(v: CelValue | undefined, kind: OpaqueKind): T | undefined {
  if (!isCelMap(v)) return undefined;
  const p = (v as unknown as Record<symbol, Opaque<T> | undefined>)[PAYLOAD];
  return p?.kind === kind ? p.value : undefined;
}

/** The parsed value, or cel-go's overload error naming the function the value does not fit. */
export function mustOpaque<T>(v: CelValue | undefined, kind: OpaqueKind, fn: string): T {
  const x = opaqueValue<T>(v, kind);
  if (x === undefined) throw new Error(`no such overload: ${fn} applied to a value that is no ${kind}`);
  return x;
}

const NONE = opaque<CelValue | undefined>("optional", "none", undefined);

/** cel-go's `optional.of(v)` / `optional.none()` (the results of `format.named` and `Format.validate`). */
export function optionalOf(v: CelValue | undefined, canonical: string): CelMap {
  return v === undefined ? NONE : opaque<CelValue | undefined>("optional", `of:${canonical}`, v);
}
