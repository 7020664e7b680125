// A client's user agent, reduced to the product and version that attribute load (`kubelet/v1.28.0`).

/** `kubelet/v1.28.0 (linux/amd64) kubernetes/abc` → `kubelet/v1.28.0`: the product and version. */
export function userAgentProduct(ua: string): string {
  const s = ua.trim();
  if (s === "") return "(none)";
  const sp = s.indexOf(" ");
  return sp < 0 ? s : s.slice(0, sp);
}
