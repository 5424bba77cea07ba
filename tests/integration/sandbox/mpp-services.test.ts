// The sandbox's Machine Payments Protocol services, paid with mppx's own client: each is served
// by mppx's server with the `evm` charge method on the sandbox chain's USDC, described by an
// OpenAPI document mppx's discovery validates, and settled on chain through the facilitator.
import { Challenge, Receipt } from "mppx";
import { Mppx, evm } from "mppx/client";
import { DiscoveryDocument, validate } from "mppx/discovery";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mppServicesOf, startSandbox, type Sandbox } from "@/sandbox";
import { chainReader, sampleRequest } from "./reference-client";

let sandbox: Sandbox;
let chain: ReturnType<typeof chainReader>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true });
  chain = chainReader(sandbox);
});

afterAll(async () => {
  await sandbox?.stop();
});

const mppServices = () => sandbox.info.services.filter((entry) => entry.protocol === "mpp");

async function mppPayer(usdc: bigint) {
  const account = privateKeyToAccount(generatePrivateKey());
  await sandbox.fund({ to: account.address, usdc });
  const client = Mppx.create({
    // The challenge names the token, not its EIP-712 domain: the payer knows the domain of what it pays in.
    methods: [
      evm.charge({
        account,
        networks: [sandbox.info.chainId],
        currencies: [sandbox.info.usdc.address],
        authorization: { name: sandbox.info.usdc.name, version: sandbox.info.usdc.version },
      }),
    ],
    polyfill: false,
  });
  return { account, client };
}

describe("the sandbox's MPP services", () => {
  it("are at least two, say they speak MPP, and one sells what an x402 service sells at another price", () => {
    const services = mppServices();
    expect(services.length).toBeGreaterThanOrEqual(2);
    for (const entry of services) {
      expect(entry.openapiUrl).toBe(`${new URL(entry.url).origin}/openapi.json`);
      expect(entry.networks).toEqual([sandbox.info.network]);
    }
    expect(mppServicesOf(sandbox.info).sort()).toEqual(services.map((entry) => entry.openapiUrl).sort());
    const x402Weather = sandbox.info.services.filter((entry) => entry.protocol === "x402" && entry.tags.includes("weather"));
    const mppWeather = services.find((entry) => entry.tags.includes("weather"));
    expect(mppWeather).toBeDefined();
    expect(x402Weather.map((entry) => entry.priceAtomic)).not.toContain(mppWeather?.priceAtomic);
  });

  it("serve an OpenAPI document with x-service-info and each operation's x-payment-info, valid by mppx's discovery", async () => {
    for (const entry of mppServices()) {
      const document: unknown = await (await fetch(entry.openapiUrl ?? "")).json();
      expect(validate(document).filter((issue) => issue.severity === "error")).toEqual([]);
      const parsed = DiscoveryDocument.parse(document);
      expect(parsed["x-service-info"]?.categories).toEqual(entry.tags);
      const operation = parsed.paths?.[new URL(entry.url).pathname]?.get;
      expect(operation?.["x-payment-info"]?.offers).toEqual([
        expect.objectContaining({ amount: entry.priceAtomic, currency: sandbox.info.usdc.address, intent: "charge", method: "evm" }),
      ]);
    }
  });

  it("answer 402 with a Payment challenge for the evm method: the chain, USDC, the price and the payee", async () => {
    for (const entry of mppServices()) {
      const { url } = sampleRequest(entry);
      const response = await fetch(url);
      expect(response.status).toBe(402);
      const challenge = Challenge.fromResponse(response);
      expect(challenge).toMatchObject({ method: "evm", intent: "charge" });
      expect(challenge.request).toMatchObject({
        amount: entry.priceAtomic,
        currency: sandbox.info.usdc.address,
        recipient: entry.payTo,
        methodDetails: { chainId: sandbox.info.chainId, decimals: 6, credentialTypes: ["authorization"] },
      });
      expect(Date.parse(challenge.expires ?? "")).toBeGreaterThan(Date.now());
    }
  });

  it("are paid with mppx's client: the price moves on chain to the payee, the data and a receipt naming the transaction come back", async () => {
    const payer = await mppPayer(100_000n);
    let spent = 0n;
    for (const entry of mppServices()) {
      const { url } = sampleRequest(entry);
      const response = await payer.client.fetch(url);
      expect(response.status, entry.name).toBe(200);
      const data = (await response.json()) as Record<string, unknown>;
      expect(data).toMatchObject(entry.tags.includes("weather") ? { city: "Lisbon" } : { topic: "money" });
      const receipt = Receipt.fromResponse(response);
      expect(receipt).toMatchObject({ method: "evm", status: "success" });
      const { receipt: onChain, transfers } = await chain.transfersIn(receipt.reference as `0x${string}`);
      expect(onChain.status).toBe("success");
      expect(transfers.map((transfer) => transfer.args)).toEqual([{ from: payer.account.address, to: entry.payTo, value: BigInt(entry.priceAtomic) }]);
      spent += BigInt(entry.priceAtomic);
    }
    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n - spent);
  });

  it("refuse a credential sent twice: the second is answered with a new challenge and nothing moves", async () => {
    const payer = await mppPayer(100_000n);
    const entry = mppServices()[0];
    if (!entry) throw new Error("no MPP service");
    const { url } = sampleRequest(entry);
    const credential = await payer.client.createCredential(await fetch(url));
    const first = await fetch(url, { headers: { Authorization: credential } });
    expect(first.status).toBe(200);
    const again = await fetch(url, { headers: { Authorization: credential } });
    expect(again.status).toBe(402);
    expect(again.headers.get("www-authenticate")).toMatch(/^Payment /);
    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n - BigInt(entry.priceAtomic));
  });

  it("check what they are asked before they charge: a request they cannot answer is a 400 with no challenge, and a paid client is charged nothing", async () => {
    const payer = await mppPayer(100_000n);
    for (const entry of mppServices()) {
      // The sample request without its inputs: no city, no topic.
      const bare = new URL(entry.url);
      const unpaid = await fetch(bare);
      expect(unpaid.status, entry.name).toBe(400);
      expect(unpaid.headers.get("www-authenticate")).toBeNull();
      const paid = await payer.client.fetch(bare.href);
      expect(paid.status, entry.name).toBe(400);
    }
    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n);
  });
});
