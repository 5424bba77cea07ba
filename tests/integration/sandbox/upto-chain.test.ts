// The sandbox's `upto` chain: Permit2 at its canonical address with the domain the x402 client
// signs for on this chain (eip155:31337), the sandbox's upto proxy at its canonical address, and
// the sandbox facilitator settling with @x402/evm's own upto facilitator. Real anvil, Circle's
// USDC, the real @x402 client and facilitator; a payer with no Permit2 allowance, given one by
// its EIP-2612 permit (the `eip2612GasSponsoring` extension) in the same settlement.
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { PERMIT2_ADDRESS, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from "@x402/evm";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { declareEip2612GasSponsoringExtension } from "@x402/extensions";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import { createPublicClient, erc20Abi, getAddress, hashDomain, http, maxUint256, parseEventLogs, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, usdcAbi, type Sandbox } from "@/sandbox";
import { compileUptoProxy, readUptoProxyArtifact } from "@/sandbox/contracts/compile";
import { permit2Abi, permit2DomainSeparator, shippedPermit2Code } from "@/sandbox/permit2";

let sandbox: Sandbox;
let facilitator: HTTPFacilitatorClient;
let facilitatorAddress: Hex;
const publicClient = () => createPublicClient({ chain: foundry, transport: http(sandbox.info.rpcUrl) });
const PAYEE = getAddress("0x00000000000000000000000000000000000b0b01");

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true });
  facilitator = new HTTPFacilitatorClient({ url: sandbox.info.facilitatorUrl });
  const supported = await facilitator.getSupported();
  const upto = supported.kinds.find((kind) => kind.scheme === "upto" && kind.network === sandbox.info.network);
  facilitatorAddress = getAddress(String(upto?.extra?.facilitatorAddress));
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
});

function requirementsFor(maximum: bigint): PaymentRequirements {
  return {
    scheme: "upto",
    network: sandbox.info.network,
    amount: maximum.toString(),
    asset: sandbox.info.usdc.address,
    payTo: PAYEE,
    maxTimeoutSeconds: 120,
    extra: { name: sandbox.info.usdc.name, version: sandbox.info.usdc.version, facilitatorAddress },
  };
}

/** A fresh payer holding `usdc`, no Permit2 allowance, and the real upto client signing for it. */
async function newPayer(usdc: bigint) {
  const account = privateKeyToAccount(generatePrivateKey());
  await sandbox.fund({ to: account.address, usdc });
  const client = publicClient();
  const signed: { domain: Record<string, unknown>; primaryType: string }[] = [];
  const scheme = new UptoEvmScheme({
    address: account.address,
    signTypedData: async (data) => {
      signed.push({ domain: data.domain, primaryType: data.primaryType });
      return account.signTypedData(data as Parameters<typeof account.signTypedData>[0]);
    },
    readContract: (args) => client.readContract(args as Parameters<typeof client.readContract>[0]),
  });
  const pay = async (requirements: PaymentRequirements): Promise<PaymentPayload> => {
    const required: PaymentRequired = {
      x402Version: 2,
      resource: { url: "http://127.0.0.1/usage" },
      accepts: [requirements],
      extensions: declareEip2612GasSponsoringExtension(),
    };
    const result = await scheme.createPaymentPayload(2, requirements, { extensions: required.extensions });
    return { x402Version: 2, resource: required.resource, accepted: requirements, payload: result.payload, ...(result.extensions ? { extensions: result.extensions } : {}) };
  };
  return { account, signed, pay };
}

const balanceOf = (owner: Hex) =>
  publicClient().readContract({ address: sandbox.info.usdc.address, abi: usdcAbi, functionName: "balanceOf", args: [owner] });

/** Whether Permit2 marked the nonce used (its unordered nonce bitmap: word nonce >> 8, bit nonce & 255). */
async function nonceUsed(owner: Hex, nonce: bigint): Promise<boolean> {
  const word = await publicClient().readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "nonceBitmap", args: [owner, nonce >> 8n] });
  return ((word >> (nonce & 255n)) & 1n) === 1n;
}

function authorizationOf(payload: PaymentPayload) {
  return (payload.payload as { permit2Authorization: { nonce: string; permitted: { amount: string } } }).permit2Authorization;
}

describe("Permit2 and the upto proxy on the sandbox chain", () => {
  it("answers the domain separator of the domain the x402 upto client signs, which the shipped code alone would not", async () => {
    const payer = await newPayer(0n);
    await payer.pay(requirementsFor(1_000n));
    const permit2Domain = payer.signed.find((entry) => entry.primaryType === "PermitWitnessTransferFrom")?.domain;
    expect(permit2Domain).toEqual({ name: "Permit2", chainId: 31337, verifyingContract: PERMIT2_ADDRESS });
    const onChain = await publicClient().readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "DOMAIN_SEPARATOR" });
    const signedFor = { name: "Permit2", chainId: 31337n, verifyingContract: PERMIT2_ADDRESS } as const;
    const domainType = [
      { name: "name", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" },
    ] as const;
    expect(onChain).toBe(hashDomain({ domain: signedFor, types: { EIP712Domain: domainType } }));
    expect(onChain).toBe(permit2DomainSeparator(31337));

    // The shipped code, as shipped, caches chain 31337 with another address's separator.
    const code = await publicClient().getCode({ address: PERMIT2_ADDRESS });
    const shipped = shippedPermit2Code();
    expect(code).not.toBe(shipped);
    expect(code?.length).toBe(shipped.length);
    expect(code?.includes(onChain.slice(2))).toBe(true);
    expect(shipped.includes(onChain.slice(2))).toBe(false);
  });

  it("starts the demo wallet with Permit2 approved, as a person who approved it once", async () => {
    const allowance = await publicClient().readContract({
      address: sandbox.info.usdc.address,
      abi: erc20Abi,
      functionName: "allowance",
      args: [sandbox.info.demoWallet.address, PERMIT2_ADDRESS],
    });
    expect(allowance).toBe(maxUint256);
  });

  it("places the proxy compiled from its committed source, at the canonical address", async () => {
    const artifact = readUptoProxyArtifact();
    expect(compileUptoProxy().deployedBytecode).toBe(artifact.deployedBytecode);
    expect(await publicClient().getCode({ address: x402UptoPermit2ProxyAddress })).toBe(artifact.deployedBytecode);
  }, 30_000);
});

describe("settling upto through the sandbox facilitator", () => {
  it("settles less than the maximum: exactly that moves to the payee, with Permit2's allowance from the payer's EIP-2612 permit", async () => {
    const payer = await newPayer(1_000_000n);
    const payload = await payer.pay(requirementsFor(500_000n));
    expect(payload.extensions?.eip2612GasSponsoring).toBeDefined();
    const verified = await facilitator.verify(payload, requirementsFor(500_000n));
    expect(verified).toMatchObject({ isValid: true, payer: payer.account.address });

    const payeeBefore = await balanceOf(PAYEE);
    const settled = await facilitator.settle(payload, { ...requirementsFor(500_000n), amount: "123456" });
    expect(settled).toMatchObject({ success: true, payer: payer.account.address, amount: "123456" });
    const receipt = await publicClient().getTransactionReceipt({ hash: settled.transaction as Hex });
    const transfers = parseEventLogs({ abi: usdcAbi, eventName: "Transfer", logs: receipt.logs }).filter(
      (log) => getAddress(log.address) === getAddress(sandbox.info.usdc.address),
    );
    expect(transfers.map((log) => log.args)).toEqual([{ from: payer.account.address, to: PAYEE, value: 123_456n }]);
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - 123_456n);
    expect(await balanceOf(PAYEE)).toBe(payeeBefore + 123_456n);
    expect(await nonceUsed(payer.account.address, BigInt(authorizationOf(payload).nonce))).toBe(true);

    // The same signature cannot be collected twice.
    const again = await facilitator.settle(payload, { ...requirementsFor(500_000n), amount: "1" });
    expect(again.success).toBe(false);
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - 123_456n);
  });

  it("settles zero: nothing moves and the nonce stays unused", async () => {
    const payer = await newPayer(1_000_000n);
    const payload = await payer.pay(requirementsFor(200_000n));
    const settled = await facilitator.settle(payload, { ...requirementsFor(200_000n), amount: "0" });
    expect(settled).toMatchObject({ success: true, transaction: "", amount: "0" });
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n);
    expect(await nonceUsed(payer.account.address, BigInt(authorizationOf(payload).nonce))).toBe(false);
  });

  it("refuses a settlement above the maximum, and moves nothing", async () => {
    const payer = await newPayer(1_000_000n);
    const payload = await payer.pay(requirementsFor(200_000n));
    const settled = await facilitator.settle(payload, { ...requirementsFor(200_000n), amount: "200001" });
    expect(settled.success).toBe(false);
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n);
  });

  it("refuses a witness naming another facilitator, or another payee", async () => {
    const payer = await newPayer(1_000_000n);
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const otherFacilitator = { ...requirementsFor(200_000n), extra: { ...requirementsFor(200_000n).extra, facilitatorAddress: stranger } };
    const verdict = await facilitator.verify(await payer.pay(otherFacilitator), otherFacilitator);
    expect(verdict).toMatchObject({ isValid: false, invalidReason: "upto_facilitator_mismatch" });

    const payload = await payer.pay(requirementsFor(200_000n));
    const elsewhere = await facilitator.verify(payload, { ...requirementsFor(200_000n), payTo: stranger });
    expect(elsewhere.isValid).toBe(false);
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n);
  });

  it("the proxy itself refuses a caller other than the witness's facilitator, and an amount above the permit", async () => {
    const payer = await newPayer(1_000_000n);
    const payload = await payer.pay(requirementsFor(200_000n));
    const { permit2Authorization: auth, signature } = payload.payload as {
      signature: Hex;
      permit2Authorization: { from: Hex; nonce: string; deadline: string; permitted: { token: Hex; amount: string }; witness: { to: Hex; facilitator: Hex; validAfter: string } };
    };
    const args = (amount: bigint) =>
      [
        { permitted: { token: auth.permitted.token, amount: BigInt(auth.permitted.amount) }, nonce: BigInt(auth.nonce), deadline: BigInt(auth.deadline) },
        amount,
        auth.from,
        { to: auth.witness.to, facilitator: auth.witness.facilitator, validAfter: BigInt(auth.witness.validAfter) },
        signature,
      ] as const;
    const intruder = privateKeyToAccount(generatePrivateKey());
    await expect(
      publicClient().simulateContract({ account: intruder, address: x402UptoPermit2ProxyAddress, abi: x402UptoPermit2ProxyABI, functionName: "settle", args: args(1n) }),
    ).rejects.toThrow(/UnauthorizedFacilitator/);
    await expect(
      publicClient().simulateContract({ account: facilitatorAddress, address: x402UptoPermit2ProxyAddress, abi: x402UptoPermit2ProxyABI, functionName: "settle", args: args(200_001n) }),
    ).rejects.toThrow(/AmountExceedsPermitted/);
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n);
  });
});

describe("the sandbox's upto services", () => {
  /** The reference x402 fetch, paying `upto` with a fresh funded key and no Permit2 allowance. */
  async function uptoFetch(usdc: bigint) {
    const account = privateKeyToAccount(generatePrivateKey());
    await sandbox.fund({ to: account.address, usdc });
    const reader = publicClient();
    const client = new x402Client().register(
      "eip155:*",
      new UptoEvmScheme({
        address: account.address,
        signTypedData: (data) => account.signTypedData(data as Parameters<typeof account.signTypedData>[0]),
        readContract: (args) => reader.readContract(args as Parameters<typeof reader.readContract>[0]),
      }),
    );
    client.setSpendControls({ allowedAssets: [{ network: sandbox.info.network, asset: sandbox.info.usdc.address }] });
    return { account, pay: wrapFetchWithPayment(fetch, client) };
  }

  const entry = (name: string) => {
    const found = sandbox.info.services.find((service) => service.name === name);
    if (!found) throw new Error(`no sandbox service ${name}`);
    return found;
  };

  it("lists at least two, with their schemes, maxima and typical charges", () => {
    const upto = sandbox.info.services.filter((service) => service.listed && service.schemes.includes("upto"));
    expect(upto.map((service) => service.name).sort()).toEqual(["doc-search", "summarize"]);
    expect(entry("summarize")).toMatchObject({ schemes: ["upto"], price: "0.02", priceAtomic: "20000", typicalPrice: "0.0025" });
    expect(entry("weather-express").schemes).toEqual(["exact"]);
  });

  it("summarize charges by the size of the text, less than the maximum the payer signed for", async () => {
    const payer = await uptoFetch(1_000_000n);
    const text = "The ledger was balanced. Every payment matched its invoice. Nobody was surprised.";
    const payeeBefore = await balanceOf(entry("summarize").payTo);
    const response = await payer.pay(entry("summarize").url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text, sentences: 1 }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ summary: "The ledger was balanced.", words: 12, characters: text.length });
    const settled = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
    const charged = BigInt(text.length) * 5n;
    expect(settled).toMatchObject({ success: true, amount: charged.toString() });
    expect(charged).toBeLessThan(20_000n);
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - charged);
    expect(await balanceOf(entry("summarize").payTo)).toBe(payeeBefore + charged);
  });

  it("doc-search charges per note found, and nothing, with no transaction, when it finds none", async () => {
    const payer = await uptoFetch(1_000_000n);
    const found = await payer.pay(`${entry("doc-search").url}?q=permit2`);
    expect(found.status).toBe(200);
    const answer = (await found.json()) as { results: unknown[] };
    expect(answer.results).toHaveLength(3);
    expect(decodePaymentResponseHeader(found.headers.get("payment-response") ?? "")).toMatchObject({ success: true, amount: "9000" });
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - 9_000n);

    const none = await payer.pay(`${entry("doc-search").url}?q=unicorns`);
    expect(none.status).toBe(200);
    expect(await none.json()).toEqual({ query: "unicorns", results: [] });
    expect(decodePaymentResponseHeader(none.headers.get("payment-response") ?? "")).toMatchObject({ success: true, transaction: "", amount: "0" });
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - 9_000n);
  });
});
