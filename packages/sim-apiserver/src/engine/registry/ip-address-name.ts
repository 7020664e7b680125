// The name rule of networking.k8s.io IPAddresses: `ValidateIPAddressName` (pkg/apis/networking/validation): the
// name is the address itself, in its canonical form.
import { isIP } from "node:net";
import type { ValidateNameFunc } from "@informer-ts/apimachinery";

/** The canonical text of an address Node parses (RFC 5952 for IPv6, as Go's `netip.Addr.String`). */
function canonical(name: string, family: number): string {
  return family === 4 ? name : new URL(`http://[${name}]/`).hostname.slice(1, -1);
}

/**
 * `ValidateIPAddressName`: the name must parse as an IP address and be written as its canonical form (`2001:db8::1`,
 * not `2001:DB8:0::1`). Difference: an IPv4-mapped IPv6 address is canonical here in its hex form
 * (`::ffff:102:304`), where Go writes `::ffff:1.2.3.4`. A `generateName` can never be an address: it is checked the
 * same way, as upstream does.
 */
export const nameIsIPAddress: ValidateNameFunc = (name) => {
  const family = isIP(name);
  if (family === 0) return [`ParseAddr(${JSON.stringify(name)}): unable to parse IP`];
  return canonical(name, family) === name ? [] : ["must be a canonical format IP address"];
};
