// Which network addresses the server may connect to when it calls a service on someone else's
// behalf (docs/contract.md, section 6, `X402_ALLOW_PRIVATE_ADDRESSES`). Only public unicast addresses, on the
// usual web ports, unless an address is in the configured allow-list; everything else (loopback,
// private, link-local and cloud metadata, CGNAT, multicast, unspecified, broadcast, reserved and
// documentation ranges, and their IPv6 equivalents and IPv4-in-IPv6 forms) is refused. Pure: the
// connection-time enforcement is in ./guarded-fetch.ts.
import { isIP } from "node:net";

export type AddressKind =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "cloud metadata"
  | "shared (carrier-grade NAT)"
  | "multicast"
  | "unspecified"
  | "broadcast"
  | "documentation"
  | "reserved";

/**
 * Ports a public address may be called on. A service on any other port is reachable only when
 * its address is in the allow-list (which may name public addresses too): a model-chosen URL must
 * not become a port scanner of the internet, and real x402 services answer on 80 and 443.
 */
export const USUAL_PORTS: ReadonlySet<number> = new Set([80, 443]);

type Family = 4 | 6;
type Range = { family: Family; base: bigint; bits: number };
type ParsedAddress = { family: Family; value: bigint };

const WIDTH: Record<Family, number> = { 4: 32, 6: 128 };

function parseIpv4(text: string): bigint {
  return text.split(".").reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

function parseIpv6(text: string): bigint {
  let source = text;
  // A trailing dotted quad (::ffff:127.0.0.1) is the last two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(source);
  if (quad?.[1]) {
    const v4 = parseIpv4(quad[1]);
    source = `${source.slice(0, quad.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", tail] = source.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array.from({ length: tail === undefined ? 0 : missing }, () => "0"), ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

/** An IP address as a number; undefined when the text is not an IP address. */
function parseAddress(text: string): ParsedAddress | undefined {
  // A zone (fe80::1%eth0) names an interface, not a different address.
  const address = text.replace(/%.*$/, "");
  const family = isIP(address);
  if (family === 4) return { family: 4, value: parseIpv4(address) };
  if (family === 6) return { family: 6, value: parseIpv6(address) };
  return undefined;
}

function inRange(address: ParsedAddress, range: Range): boolean {
  if (address.family !== range.family) return false;
  const shift = BigInt(WIDTH[range.family] - range.bits);
  return address.value >> shift === range.base >> shift;
}

function cidr(text: string): Range {
  const range = parseRange(text);
  if (!range) throw new Error(`not a CIDR range: ${text}`);
  return range;
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (a /32 or /128). */
function parseRange(text: string): Range | undefined {
  const [addressText = "", bitsText, extra] = text.trim().split("/");
  if (extra !== undefined) return undefined;
  const address = parseAddress(addressText);
  if (!address || addressText.includes("%")) return undefined;
  const width = WIDTH[address.family];
  if (bitsText === undefined) return { ...address, base: address.value, bits: width };
  if (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > width) return undefined;
  return { family: address.family, base: address.value, bits: Number(bitsText) };
}

// First match wins: the narrower ranges come before the wider ones that hold them.
const IPV4_RANGES: ReadonlyArray<[Range, AddressKind]> = (
  [
    ["169.254.169.254/32", "cloud metadata"],
    ["255.255.255.255/32", "broadcast"],
    ["0.0.0.0/8", "unspecified"],
    ["10.0.0.0/8", "private"],
    ["100.64.0.0/10", "shared (carrier-grade NAT)"],
    ["127.0.0.0/8", "loopback"],
    ["169.254.0.0/16", "link-local"],
    ["172.16.0.0/12", "private"],
    ["192.0.0.0/24", "reserved"],
    ["192.0.2.0/24", "documentation"],
    ["192.88.99.0/24", "reserved"],
    ["192.168.0.0/16", "private"],
    ["198.18.0.0/15", "reserved"],
    ["198.51.100.0/24", "documentation"],
    ["203.0.113.0/24", "documentation"],
    ["224.0.0.0/4", "multicast"],
    ["240.0.0.0/4", "reserved"],
  ] as const
).map(([text, kind]) => [cidr(text), kind]);

// IPv6 outside global unicast (2000::/3) is never public; these name the kinds worth telling apart.
const IPV6_RANGES: ReadonlyArray<[Range, AddressKind]> = (
  [
    ["::/128", "unspecified"],
    ["::1/128", "loopback"],
    ["fc00::/7", "private"],
    ["fe80::/10", "link-local"],
    ["fec0::/10", "private"],
    ["ff00::/8", "multicast"],
    ["2001:db8::/32", "documentation"],
    ["3fff::/20", "documentation"],
    // IETF protocol assignments, Teredo (2001::/32) among them: not a place for a web service.
    ["2001::/23", "reserved"],
  ] as const
).map(([text, kind]) => [cidr(text), kind]);

const GLOBAL_UNICAST = cidr("2000::/3");
const IPV4_MAPPED = cidr("::ffff:0:0/96");
const NAT64 = cidr("64:ff9b::/96");
const SIX_TO_FOUR = cidr("2002::/16");

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that reach an IPv4
 * host (IPv4-mapped, NAT64's well-known prefix, 6to4), so ::ffff:127.0.0.1 is judged as 127.0.0.1.
 */
function embeddedIpv4(address: ParsedAddress): ParsedAddress | undefined {
  if (address.family !== 6) return undefined;
  if (inRange(address, IPV4_MAPPED) || inRange(address, NAT64)) return { family: 4, value: address.value & 0xffffffffn };
  if (inRange(address, SIX_TO_FOUR)) return { family: 4, value: (address.value >> 80n) & 0xffffffffn };
  return undefined;
}

function kindOf(address: ParsedAddress): AddressKind {
  const inner = embeddedIpv4(address);
  if (inner) return kindOf(inner);
  const ranges = address.family === 4 ? IPV4_RANGES : IPV6_RANGES;
  const match = ranges.find(([range]) => inRange(address, range));
  if (match) return match[1];
  if (address.family === 6 && !inRange(address, GLOBAL_UNICAST)) return "reserved";
  return "public";
}

/** What kind of address this is; `public` only for globally reachable unicast. Throws on a non-address. */
export function classifyAddress(address: string): AddressKind {
  const parsed = parseAddress(address);
  if (!parsed) throw new TypeError(`not an IP address: ${address}`);
  return kindOf(parsed);
}

/**
 * True for an entry `X402_ALLOW_PRIVATE_ADDRESSES` accepts: an IPv4 or IPv6 address or a CIDR
 * range, on any port, or with the ports it is allowed on: `127.0.0.1:4101`, `127.0.0.1:4100-4109`,
 * `[::1]:4101`.
 */
export function isAddressOrRange(text: string): boolean {
  return parseEntry(text) !== undefined;
}

/** An allowed range, on every port or on `ports` only. */
type Allowed = { range: Range; ports: [number, number] | undefined };

/** The addresses (and ports) that may be called although they are not public. */
export type AddressPolicy = { readonly allowed: readonly Allowed[] };

export function createAddressPolicy(allowPrivate: readonly string[] = []): AddressPolicy {
  return {
    allowed: allowPrivate.map((entry) => {
      const allowed = parseEntry(entry);
      if (!allowed) throw new TypeError(`not an IP address or CIDR range (with ports, optionally): ${entry}`);
      return allowed;
    }),
  };
}

function parseEntry(text: string): Allowed | undefined {
  const entry = text.trim();
  // [range]:ports for IPv6, range:ports for IPv4; a bare IPv6 range has colons of its own.
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5})(?:-(\d{1,5}))?)?$/.exec(entry);
  const v4WithPorts = /^([\d./]+):(\d{1,5})(?:-(\d{1,5}))?$/.exec(entry);
  const [rangeText, low, high] = bracketed ? [bracketed[1], bracketed[2], bracketed[3]] : v4WithPorts ? [v4WithPorts[1], v4WithPorts[2], v4WithPorts[3]] : [entry, undefined, undefined];
  const range = parseRange(rangeText ?? "");
  if (!range || (bracketed && range.family !== 6) || (v4WithPorts && range.family !== 4)) return undefined;
  if (low === undefined) return { range, ports: undefined };
  const from = Number(low);
  const to = Number(high ?? low);
  if (from < 1 || to > 65_535 || from > to) return undefined;
  return { range, ports: [from, to] };
}

export type DestinationRefusal =
  | { reason: "address"; address: string; kind: Exclude<AddressKind, "public"> }
  | { reason: "port"; address: string; port: number }
  | { reason: "plain-http"; address: string };

/**
 * Whether a connection to `address:port` may be made. An allow-listed address passes on the
 * ports its entry names (every port when it names none); an IPv4-mapped IPv6 address is allowed
 * as its IPv4 address would be. Plain `http:` goes only to allow-listed addresses (the sandbox's
 * own services): anything else is called over https.
 */
export function checkDestination(
  policy: AddressPolicy,
  { address, port, protocol = "https:" }: { address: string; port: number; protocol?: string },
): DestinationRefusal | undefined {
  const parsed = parseAddress(address);
  if (!parsed) return { reason: "address", address, kind: "reserved" };
  const mapped = parsed.family === 6 && inRange(parsed, IPV4_MAPPED) ? embeddedIpv4(parsed) : undefined;
  const allowed = policy.allowed.some(
    ({ range, ports }) => (inRange(parsed, range) || (mapped !== undefined && inRange(mapped, range))) && (!ports || (port >= ports[0] && port <= ports[1])),
  );
  if (allowed) return undefined;
  const kind = kindOf(parsed);
  if (kind !== "public") return { reason: "address", address, kind };
  if (!USUAL_PORTS.has(port)) return { reason: "port", address, port };
  if (protocol === "http:") return { reason: "plain-http", address };
  return undefined;
}
