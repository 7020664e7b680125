/**
 * IP addresses and CIDRs as Kubernetes' CEL `ip`/`cidr` libraries see them (apiserver/pkg/cel/library/ip.go and
 * cidr.go over Go's `net/netip`): IPv4 in dotted-quad form without leading zeros, IPv6 in any RFC 4291 text form; a
 * zone (`fe80::1%eth0`) and an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) are rejected as upstream rejects them.
 * An address is its family and a bigint of its 32 or 128 bits; `ipString` prints Go's canonical form (RFC 5952).
 */
export interface IPAddr {
  readonly family: 4 | 6;
  readonly bits: bigint;
}

export interface CIDR {
  readonly ip: IPAddr;
  readonly prefix: number;
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let bits = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === "0")) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    bits = (bits << 8n) | BigInt(n);
  }
  return bits;
}

function parseV6(s: string): bigint | undefined {
  let text = s;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    // An embedded IPv4 tail (`::1.2.3.4`) is the last two groups.
    const v4 = parseV4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const group = (h: string): bigint[] | undefined => {
    if (h === "") return [];
    const out: bigint[] = [];
    for (const g of h.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(BigInt(`0x${g}`));
    }
    return out;
  };
  const head = group(halves[0] as string);
  const rest = halves.length === 2 ? group(halves[1] as string) : [];
  if (head === undefined || rest === undefined) return undefined;
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  const groups = [...head, ...new Array<bigint>(8 - given).fill(0n), ...rest];
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/**
 * Go's reason a string is no address (`netip.ParseAddr`'s error after the input): the IPv4 field-count, value and
 * leading-zero errors, and an IPv6 empty field with where it is; other malformed input is `unable to parse IP`.
 */
function parseFailure(s: string): string {
  if (!s.includes(":")) {
    const parts = s.split(".");
    if (parts.length > 4) return "IPv4 address too long";
    if (parts.length < 4) return "IPv4 address too short";
    for (const p of parts) {
      if (!/^\d+$/.test(p)) return p === "" ? "IPv4 field must have at least one digit" : "unexpected character";
      if (p.length > 1 && p[0] === "0") return "IPv4 field has octet with leading zero";
      if (Number(p) > 255) return "IPv4 field has value >255";
    }
  }
  const triple = s.indexOf(":::");
  if (triple !== -1)
    return `each colon-separated field must have at least one digit (at ${JSON.stringify(s.slice(triple + 2))})`;
  return "unable to parse IP";
}

const parseError = (s: string): Error =>
  new Error(
    `IP Address ${JSON.stringify(s)} parse error during conversion from string: ParseAddr(${JSON.stringify(s)}): ${parseFailure(s)}`,
  );

/** `netip.ParseAddr` with the ip library's checks; the error names the input as upstream's does. */
export function parseIP(s: string): IPAddr | Error {
  if (s.includes("%")) return new Error(`IP address with zone value is not allowed: ${s}`);
  if (!s.includes(":")) {
    const v4 = parseV4(s);
    return v4 === undefined ? parseError(s) : { family: 4, bits: v4 };
  }
  const v6 = parseV6(s);
  if (v6 === undefined) return parseError(s);
  if (v6 >> 32n === 0xffffn) return new Error(`IPv4-mapped IPv6 address is not allowed: ${s}`);
  return { family: 6, bits: v6 };
}

/**
 * `netip.ParsePrefix` with the cidr library's checks; the error as upstream's reads, its prefix twice (the library
 * wraps an error that already carries it).
 */
export function parseCIDR(s: string): CIDR | Error {
  const fail = (why: string) =>
    new Error(
      `network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(s)}): ${why}`,
    );
  const slash = s.lastIndexOf("/");
  if (slash === -1) return fail("no '/'");
  const addr = s.slice(0, slash);
  if (addr.includes("%")) return fail("IPv6 zones cannot be present in a prefix");
  const ip = parseIP(addr);
  if (ip instanceof Error) return fail(`ParseAddr(${JSON.stringify(addr)}): ${parseFailure(addr)}`);
  const len = s.slice(slash + 1);
  const max = ip.family === 4 ? 32 : 128;
  if (!/^(0|[1-9]\d{0,2})$/.test(len)) return fail(`bad bits after slash: ${JSON.stringify(len)}`);
  if (Number(len) > max) return fail(`prefix length out of range`);
  return { ip, prefix: Number(len) };
}

const width = (a: IPAddr): number => (a.family === 4 ? 32 : 128);

/** Go's `netip.Addr.String()`: dotted quad, or RFC 5952 (lower case, the longest run of zero groups as `::`). */
export function ipString(a: IPAddr): string {
  if (a.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((a.bits >> s) & 0xffn)).join(".");
  const groups = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((a.bits >> BigInt(i * 16)) & 0xffffn));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(":");
  if (best === -1) return hex(groups);
  return `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

export function cidrString(c: CIDR): string {
  return `${ipString(c.ip)}/${c.prefix}`;
}

/** The address with the host bits cleared (`Prefix.Masked()`). */
export function maskedCIDR(c: CIDR): CIDR {
  const host = BigInt(width(c.ip) - c.prefix);
  return { ip: { family: c.ip.family, bits: (c.ip.bits >> host) << host }, prefix: c.prefix };
}

export function cidrContainsIP(c: CIDR, a: IPAddr): boolean {
  if (c.ip.family !== a.family) return false;
  const host = BigInt(width(a) - c.prefix);
  return c.ip.bits >> host === a.bits >> host;
}

export function cidrContainsCIDR(c: CIDR, other: CIDR): boolean {
  return other.prefix >= c.prefix && cidrContainsIP(c, other.ip);
}

const inRange = (a: IPAddr, base: bigint, prefix: number): boolean =>
  cidrContainsIP({ ip: { family: a.family, bits: base }, prefix }, a);

export const isLoopback = (a: IPAddr): boolean => (a.family === 4 ? inRange(a, 0x7f000000n, 8) : a.bits === 1n);
export const isUnspecified = (a: IPAddr): boolean => a.bits === 0n;
export const isLinkLocalMulticast = (a: IPAddr): boolean =>
  a.family === 4 ? inRange(a, 0xe0000000n, 24) : ((a.bits >> 112n) & 0xff0fn) === 0xff02n;
export const isLinkLocalUnicast = (a: IPAddr): boolean =>
  a.family === 4 ? inRange(a, 0xa9fe0000n, 16) : a.bits >> 118n === 0x3fan;
const isMulticast = (a: IPAddr): boolean => (a.family === 4 ? inRange(a, 0xe0000000n, 4) : a.bits >> 120n === 0xffn);
/** Go's `Addr.IsGlobalUnicast`: none of the above, not multicast, not the IPv4 broadcast address. */
export const isGlobalUnicast = (a: IPAddr): boolean =>
  !isUnspecified(a) &&
  !isLoopback(a) &&
  !isMulticast(a) &&
  !isLinkLocalUnicast(a) &&
  !(a.family === 4 && a.bits === 0xffffffffn);
