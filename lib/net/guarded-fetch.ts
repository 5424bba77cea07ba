// The one way the server calls an address someone else chose (a service URL the model names or a
// registry lists): `fetch` from undici through an Agent whose connector checks every address
// against the address policy at connection time, on each new connection. The host's name is
// resolved once per connection, every address it resolves to is checked, and the socket connects
// only to those checked addresses, so a name that changes its answer between a check and the
// connection (DNS rebinding) cannot slip through. Literal IP hosts are checked the same way.
// Redirects are never followed: a 3xx comes back as it is.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector, fetch, type RequestInit } from "undici";
import { checkDestination, createAddressPolicy, type AddressPolicy, type DestinationRefusal } from "./address-policy";

const REFUSED_CODE = "ERR_DESTINATION_REFUSED";

const KIND_PHRASES: Record<Extract<DestinationRefusal, { reason: "address" }>["kind"], string> = {
  loopback: "this server's own loopback address",
  private: "a private network address",
  "link-local": "a link-local address",
  "cloud metadata": "the cloud metadata address",
  "shared (carrier-grade NAT)": "a carrier-grade NAT address",
  multicast: "a multicast address",
  unspecified: "an unspecified address",
  broadcast: "the broadcast address",
  documentation: "a documentation-only address",
  reserved: "a reserved address",
};

/** A destination the policy refuses: nothing was sent to it. Its message is safe to show. */
export class RefusedDestinationError extends Error {
  override readonly name = "RefusedDestinationError";
  readonly code = REFUSED_CODE;
  readonly host: string;
  readonly refusal: DestinationRefusal | { reason: "scheme"; protocol: string };

  constructor(host: string, refusal: RefusedDestinationError["refusal"]) {
    super(describeRefusal(host, refusal));
    this.host = host;
    this.refusal = refusal;
  }
}

function describeRefusal(host: string, refusal: RefusedDestinationError["refusal"]): string {
  const start = `The service at ${host} is not reachable from here`;
  switch (refusal.reason) {
    case "address":
      return `${start}: it points to ${KIND_PHRASES[refusal.kind]} (${refusal.address}), and this agent only calls public addresses.`;
    case "port":
      return `${start}: it uses port ${refusal.port}, and this agent only calls public services on the usual web ports (80 and 443).`;
    case "plain-http":
      return `${start}: its address is http://, and this agent only calls services over https (plain http only for the local sandbox's own).`;
    case "scheme":
      return `${start}: only http and https addresses are called, not ${refusal.protocol}.`;
  }
}

/** Resolves a host name to every address it has (tests pass their own). */
export type Resolve = (hostname: string, family: number) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname, family) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, family }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/** net.connect's `lookup`: resolve, refuse if any address is refused, else hand over the checked addresses. */
function checkedLookup(policy: AddressPolicy, port: number, protocol: string, resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0;
    resolve(hostname, family).then(
      (addresses) => {
        const refusal = addresses.map((entry) => checkDestination(policy, { address: entry.address, port, protocol })).find(Boolean);
        if (refusal) return callback(new RefusedDestinationError(hostname, refusal), "", 0);
        const [first] = addresses;
        if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
        if (options.all) return callback(null, addresses);
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}

function defaultPort(protocol: string): number {
  return protocol === "https:" ? 443 : 80;
}

function checkedConnector(policy: AddressPolicy, resolve: Resolve): buildConnector.connector {
  // One connector per scheme and port, since both decide which addresses pass.
  const byPort = new Map<string, buildConnector.connector>();
  return (options, callback) => {
    const port = Number(options.port) || defaultPort(options.protocol);
    const host = options.hostname.replace(/^\[(.*)\]$/, "$1");
    // Node connects to a literal IP without calling `lookup`: check it here.
    if (isIP(host)) {
      const refusal = checkDestination(policy, { address: host, port, protocol: options.protocol });
      if (refusal) return callback(new RefusedDestinationError(host, refusal), null);
    }
    const key = `${options.protocol}${port}`;
    let connector = byPort.get(key);
    if (!connector) {
      connector = buildConnector({ lookup: checkedLookup(policy, port, options.protocol, resolve) });
      byPort.set(key, connector);
    }
    return connector(options, callback);
  };
}

// One agent per allow-list, kept for the process (the configuration does not change while it runs).
const agents = new Map<string, Agent>();

function agentFor(allowPrivate: readonly string[], resolve: Resolve | undefined): Agent {
  const policy = createAddressPolicy(allowPrivate);
  if (resolve) return new Agent({ connect: checkedConnector(policy, resolve) });
  const key = allowPrivate.join(",");
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ connect: checkedConnector(policy, systemResolve) });
    agents.set(key, agent);
  }
  return agent;
}

export type GuardedFetchInit = Omit<RequestInit, "redirect" | "dispatcher"> & {
  /** `X402_ALLOW_PRIVATE_ADDRESSES`: addresses and CIDR ranges allowed although not public. */
  allowPrivate?: readonly string[];
  /** Resolves host names instead of the system's resolver (tests). */
  resolve?: Resolve;
};

// undici's Response is the class behind the global one (a web ReadableStream body, the same
// headers); only its declared stream types differ from the DOM library's.
function asResponse(response: Awaited<ReturnType<typeof fetch>>): Response {
  return response as unknown as Response;
}

/** Redirects a registry may take before its answer: enough for http→https or a moved path. */
const MAX_REDIRECTS = 3;

/**
 * `fetch` for a registry (X402_DISCOVERY_URLS): the same address policy as a service call, on the
 * registry's own address and on every redirect it answers with, each hop checked at connection
 * time. A registry is configured by the deployer, but what it answers, redirects included, is not.
 */
export async function guardedFetchFollowing(url: string | URL, init: GuardedFetchInit = {}): Promise<Response> {
  let target = new URL(url);
  for (let hop = 0; ; hop += 1) {
    const response = await guardedFetch(target, init);
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location || hop >= MAX_REDIRECTS) return response;
    await response.body?.cancel();
    target = new URL(location, target);
  }
}

/**
 * `fetch` for a URL someone else chose. A destination the policy refuses rejects with
 * RefusedDestinationError before any byte is sent; other failures are fetch's own (a TypeError
 * whose `cause` says why). Redirects are returned, never followed.
 */
export async function guardedFetch(url: string | URL, { allowPrivate = [], resolve, ...init }: GuardedFetchInit = {}): Promise<Response> {
  const target = new URL(url);
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw new RefusedDestinationError(target.host, { reason: "scheme", protocol: target.protocol });
  }
  try {
    return asResponse(await fetch(target, { ...init, redirect: "manual", dispatcher: agentFor(allowPrivate, resolve) }));
  } catch (error) {
    const cause = error instanceof Error ? error.cause : undefined;
    if (cause instanceof RefusedDestinationError) throw cause;
    throw error;
  }
}
