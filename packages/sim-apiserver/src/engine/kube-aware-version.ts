/**
 * Kubernetes version ordering as a sort comparator, preferred first (apimachinery `pkg/version/helpers.go`,
 * `CompareKubeAwareVersionStrings`, negated): GA before beta before alpha, higher
 * major first, then higher minor; anything else after, alphabetically.
 */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return undefined;
    const stage = m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0;
    return { major: Number(m[1]), stage, minor: m[3] === undefined ? 0 : Number(m[3]) };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa === undefined && pb === undefined) return a < b ? -1 : a > b ? 1 : 0;
  if (pa === undefined) return 1;
  if (pb === undefined) return -1;
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}
