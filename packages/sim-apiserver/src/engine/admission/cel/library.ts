import { type CelEnv, type CelFunc, CelScalar, type CelValue, celEnv, celMethod, listType } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { KUBERNETES_LIBRARIES } from "./kubernetes-library.js";

type Orderable = bigint | number | string;

function orderable(list: Iterable<CelValue>): Orderable[] {
  const out: Orderable[] = [];
  for (const v of list) {
    if (typeof v !== "bigint" && typeof v !== "number" && typeof v !== "string")
      throw new Error(`no such overload: list of ${typeof v} is not comparable`);
    out.push(v);
  }
  return out;
}

const LIST = listType(CelScalar.DYN);

/**
 * The list functions of Kubernetes' CEL library (apiserver/pkg/cel/library/lists.go) on @bufbuild/cel:
 * `isSorted()`, `sum()`, `min()`, `max()`, `indexOf(x)`, `lastIndexOf(x)` on lists of ints, doubles or strings.
 * `min()`/`max()` of an empty list are errors, as upstream's are; `sum()` of an empty list is 0.
 */
const KUBERNETES_LISTS: CelFunc[] = [
  celMethod("isSorted", LIST, [], CelScalar.BOOL, function () {
    const xs = orderable(this);
    for (let i = 1; i < xs.length; i++) if ((xs[i - 1] as Orderable) > (xs[i] as Orderable)) return false;
    return true;
  }),
  celMethod("sum", LIST, [], CelScalar.DYN, function () {
    const xs = orderable(this);
    if (xs.length === 0) return 0n;
    if (typeof xs[0] === "bigint") return (xs as bigint[]).reduce((a, b) => a + b, 0n);
    return (xs as number[]).reduce((a, b) => a + b, 0);
  }),
  celMethod("min", LIST, [], CelScalar.DYN, function () {
    const xs = orderable(this);
    if (xs.length === 0) throw new Error("min called on empty list");
    // biome-ignore lint/complexity/useMathMinMax: the items are bigints or strings too, which Math.min does not take
    return xs.reduce((a, b) => (b < a ? b : a));
  }),
  celMethod("max", LIST, [], CelScalar.DYN, function () {
    const xs = orderable(this);
    if (xs.length === 0) throw new Error("max called on empty list");
    // biome-ignore lint/complexity/useMathMinMax: the items are bigints or strings too, which Math.max does not take
    return xs.reduce((a, b) => (b > a ? b : a));
  }),
  celMethod("indexOf", LIST, [CelScalar.DYN], CelScalar.INT, function (x) {
    let i = 0;
    for (const v of this) {
      if (v === x) return BigInt(i);
      i++;
    }
    return -1n;
  }),
  celMethod("lastIndexOf", LIST, [CelScalar.DYN], CelScalar.INT, function (x) {
    let found = -1;
    let i = 0;
    for (const v of this) {
      if (v === x) found = i;
      i++;
    }
    return BigInt(found);
  }),
];

/**
 * The CEL environment `x-kubernetes-validations` are planned in: CEL's standard library, cel-go's strings extension
 * (`charAt`, `lowerAscii`, `split`, `join`, `replace`, `strings.quote`, … — @bufbuild/cel's `ext`), and Kubernetes'
 * libraries (k8s.io/apiserver/pkg/cel/library): lists, regex (`find`, `findAll`), `url`, `quantity`, `ip`/`cidr` and
 * `format` (kubernetes-library.ts), and cel-go's sets extension. The authorizer library is not provided (CRD
 * rules have no `authorizer`).
 */
export const VALIDATION_ENV: CelEnv = celEnv({ funcs: [...strings, ...KUBERNETES_LISTS, ...KUBERNETES_LIBRARIES] });
