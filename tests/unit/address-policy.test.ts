// The address policy of outbound service calls (docs/contract.md, section 6): only public addresses on the
// usual web ports, the configured allow-list excepted, with IPv6 and IPv4-in-IPv6 forms judged
// like the addresses they reach.
import { describe, expect, test } from "vitest";
import { parseServerEnv } from "@/lib/env";
import { checkDestination, classifyAddress, createAddressPolicy, isAddressOrRange } from "@/lib/net/address-policy";

describe("which addresses are public", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "cloud metadata"],
    ["169.254.1.1", "link-local"],
    ["100.64.0.1", "shared (carrier-grade NAT)"],
    ["100.127.255.255", "shared (carrier-grade NAT)"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.0.8", "reserved"],
    ["198.18.0.1", "reserved"],
    ["192.0.2.10", "documentation"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "cloud metadata"],
    ["::ffff:10.1.2.3", "private"],
    ["64:ff9b::a9fe:a9fe", "cloud metadata"],
    ["2002:7f00:1::1", "loopback"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["2001:0:4136:e378::1", "reserved"],
    ["::7f00:1", "reserved"],
    ["100::1", "reserved"],
    ["4000::1", "reserved"],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  test.each(["8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "169.253.0.1", "2606:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"])(
    "%s is public",
    (address) => {
      expect(classifyAddress(address)).toBe("public");
    },
  );
});

describe("checkDestination", () => {
  const strict = createAddressPolicy([]);

  test("refuses every non-public address and names what it is", () => {
    expect(checkDestination(strict, { address: "169.254.169.254", port: 80 })).toEqual({
      reason: "address",
      address: "169.254.169.254",
      kind: "cloud metadata",
    });
    expect(checkDestination(strict, { address: "::1", port: 443 })).toMatchObject({ reason: "address", kind: "loopback" });
  });

  test("lets a public address through on the usual web ports only", () => {
    expect(checkDestination(strict, { address: "8.8.8.8", port: 443 })).toBeUndefined();
    expect(checkDestination(strict, { address: "2606:4700::1111", port: 80 })).toBeUndefined();
    expect(checkDestination(strict, { address: "8.8.8.8", port: 22 })).toEqual({ reason: "port", address: "8.8.8.8", port: 22 });
    expect(checkDestination(strict, { address: "8.8.8.8", port: 8080 })).toMatchObject({ reason: "port" });
  });

  test("allows exactly the allow-list's addresses, on any port, and nothing next to them", () => {
    const sandbox = createAddressPolicy(["127.0.0.1"]);
    expect(checkDestination(sandbox, { address: "127.0.0.1", port: 4100 })).toBeUndefined();
    expect(checkDestination(sandbox, { address: "::ffff:127.0.0.1", port: 4100 })).toBeUndefined();
    expect(checkDestination(sandbox, { address: "127.0.0.2", port: 4100 })).toMatchObject({ reason: "address", kind: "loopback" });
    expect(checkDestination(sandbox, { address: "::1", port: 4100 })).toMatchObject({ reason: "address", kind: "loopback" });
    expect(checkDestination(sandbox, { address: "169.254.169.254", port: 80 })).toMatchObject({ reason: "address" });
  });

  test("an entry that names ports allows its addresses on those ports only: the sandbox's services, not anvil beside them", () => {
    const sandbox = createAddressPolicy(["127.0.0.1:4101", "127.0.0.1:4200-4202", "[::1]:4101"]);
    expect(checkDestination(sandbox, { address: "127.0.0.1", port: 4101, protocol: "http:" })).toBeUndefined();
    expect(checkDestination(sandbox, { address: "127.0.0.1", port: 4202 })).toBeUndefined();
    expect(checkDestination(sandbox, { address: "::1", port: 4101 })).toBeUndefined();
    expect(checkDestination(sandbox, { address: "127.0.0.1", port: 8545 })).toMatchObject({ reason: "address", kind: "loopback" });
    expect(checkDestination(sandbox, { address: "127.0.0.1", port: 4203 })).toMatchObject({ reason: "address", kind: "loopback" });
  });

  test("plain http only to an allowed address; anything public is called over https", () => {
    expect(checkDestination(strict, { address: "8.8.8.8", port: 80, protocol: "http:" })).toEqual({ reason: "plain-http", address: "8.8.8.8" });
    expect(checkDestination(strict, { address: "8.8.8.8", port: 443, protocol: "https:" })).toBeUndefined();
    expect(checkDestination(createAddressPolicy(["127.0.0.1"]), { address: "127.0.0.1", port: 4100, protocol: "http:" })).toBeUndefined();
  });

  test("allows CIDR ranges, IPv4 and IPv6, and public addresses on other ports when listed", () => {
    const lan = createAddressPolicy(["10.20.0.0/16", "fd00::/8", "203.0.114.7"]);
    expect(checkDestination(lan, { address: "10.20.3.4", port: 8080 })).toBeUndefined();
    expect(checkDestination(lan, { address: "10.21.0.1", port: 80 })).toMatchObject({ reason: "address", kind: "private" });
    expect(checkDestination(lan, { address: "fd00::1234", port: 3000 })).toBeUndefined();
    expect(checkDestination(lan, { address: "fc00::1", port: 80 })).toMatchObject({ reason: "address", kind: "private" });
    expect(checkDestination(lan, { address: "203.0.114.7", port: 8443 })).toBeUndefined();
    expect(checkDestination(lan, { address: "203.0.114.8", port: 8443 })).toMatchObject({ reason: "port" });
  });
});

describe("X402_ALLOW_PRIVATE_ADDRESSES", () => {
  test("is empty by default: nothing but public addresses", () => {
    expect(parseServerEnv({}).X402_ALLOW_PRIVATE_ADDRESSES).toEqual([]);
  });

  test("reads addresses and CIDR ranges, IPv4 and IPv6", () => {
    const env = parseServerEnv({ X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1, 10.0.0.0/8,fd00::/8 ,::1" });
    expect(env.X402_ALLOW_PRIVATE_ADDRESSES).toEqual(["127.0.0.1", "10.0.0.0/8", "fd00::/8", "::1"]);
  });

  test("reads entries with the ports they are allowed on", () => {
    const env = parseServerEnv({ X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1:4101,127.0.0.1:4200-4209,[::1]:4101,10.0.0.0/8:8080" });
    expect(env.X402_ALLOW_PRIVATE_ADDRESSES).toEqual(["127.0.0.1:4101", "127.0.0.1:4200-4209", "[::1]:4101", "10.0.0.0/8:8080"]);
  });

  test.each(["localhost", "127.0.0.1/33", "10.0.0.0/8/8", "fd00::/129", "256.1.1.1", "127.0.0.1:0", "127.0.0.1:70000", "127.0.0.1:4105-4100", "[127.0.0.1]:4100", "10.0.0.0/x"])(
    "a bad entry (%s) fails at start naming the variable",
    (entry) => {
      expect(isAddressOrRange(entry)).toBe(false);
      expect(() => parseServerEnv({ X402_ALLOW_PRIVATE_ADDRESSES: `127.0.0.1,${entry}` })).toThrow(/X402_ALLOW_PRIVATE_ADDRESSES/);
    },
  );
});
