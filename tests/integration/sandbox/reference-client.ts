// A reference x402 client for the sandbox tests: the real @x402/fetch and @x402/evm client
// packages, a fresh viem account funded through the sandbox's funder, and chain readers.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, SettleResponse } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { createKeyPairSignerFromBytes, getBase58Encoder } from "@solana/kit";
import { newSolanaKey } from "@/sandbox/solana";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import { createPublicClient, http, parseEventLogs, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { usdcAbi, type Sandbox, type SandboxServiceInfo } from "@/sandbox";

export type Payer = {
  account: PrivateKeyAccount;
  client: x402Client;
  /** fetch that pays 402s on its own. */
  pay: (input: string, init?: RequestInit) => Promise<Response>;
  /** Builds a signed PAYMENT-SIGNATURE header for a 402 response, without sending it. */
  sign: (response: Response) => Promise<{ header: string; payload: PaymentPayload }>;
};

export async function createPayer(sandbox: Sandbox, usdc: bigint): Promise<Payer> {
  const account = privateKeyToAccount(generatePrivateKey());
  if (usdc > 0n) await sandbox.fund({ to: account.address, usdc });
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  // The 2.2x client refuses assets it does not know; sandbox USDC is one of those.
  client.setSpendControls({ allowedAssets: [{ network: sandbox.info.network, asset: sandbox.info.usdc.address }] });
  const httpClient = new x402HTTPClient(client);
  return {
    account,
    client,
    pay: wrapFetchWithPayment(fetch, client),
    sign: async (response) => {
      const body: unknown = await response.json().catch(() => undefined);
      const required = httpClient.getPaymentRequiredResponse((name) => response.headers.get(name), body);
      const payload = await client.createPaymentPayload(required);
      const headers = httpClient.encodePaymentSignatureHeader(payload);
      const header = headers["PAYMENT-SIGNATURE"];
      if (!header) throw new Error(`no PAYMENT-SIGNATURE header in ${JSON.stringify(Object.keys(headers))}`);
      return { header, payload };
    },
  };
}

/**
 * A Solana payer: the real @x402/svm client with a fresh funded key, building its transfers
 * against the local Solana (the `exact` scheme's client asks the RPC for a blockhash).
 */
export async function createSolanaPayer(sandbox: Sandbox, usdc: bigint) {
  const key = newSolanaKey();
  if (usdc > 0n) await sandbox.solana.fund({ to: key.address, usdc });
  const signer = await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(key.secretKey)));
  const client = new x402Client().register(sandbox.info.solana.network as `${string}:${string}`, new ExactSvmScheme(signer, { rpcUrl: sandbox.info.solana.rpcUrl }));
  client.setSpendControls({ allowedAssets: [{ network: sandbox.info.solana.network as `${string}:${string}`, asset: sandbox.info.solana.usdc.mint }] });
  return { key, pay: wrapFetchWithPayment(fetch, client) };
}

export function chainReader(sandbox: Sandbox) {
  const publicClient = createPublicClient({ transport: http(sandbox.info.rpcUrl) });
  return {
    publicClient,
    balanceOf: (owner: Hex) =>
      publicClient.readContract({ address: sandbox.info.usdc.address, abi: usdcAbi, functionName: "balanceOf", args: [owner] }),
    /** The USDC Transfer events of a transaction. */
    transfersIn: async (hash: Hex) => {
      const receipt = await publicClient.getTransactionReceipt({ hash });
      return {
        receipt,
        transfers: parseEventLogs({ abi: usdcAbi, eventName: "Transfer", logs: receipt.logs }).filter(
          (log) => log.address.toLowerCase() === sandbox.info.usdc.address.toLowerCase(),
        ),
      };
    },
  };
}

export function settlementOf(response: Response): SettleResponse {
  const header = response.headers.get("payment-response");
  if (!header) throw new Error(`no PAYMENT-RESPONSE header (status ${response.status})`);
  return decodePaymentResponseHeader(header);
}

export function service(sandbox: Sandbox, name: string): SandboxServiceInfo {
  const found = sandbox.info.services.find((entry) => entry.name === name);
  if (!found) throw new Error(`no sandbox service "${name}"`);
  return found;
}

/** A request each sandbox service answers with data: its URL with query, and fetch init. */
export function sampleRequest(entry: SandboxServiceInfo): { url: string; init?: RequestInit } {
  const query: Record<string, string> = {
    "weather-express": "city=Lisbon",
    "weather-budget": "city=Lisbon",
    "crypto-prices": "symbol=BTC",
    "news-headlines": "topic=technology&limit=2",
    "currency-convert": "from=USD&to=EUR&amount=10",
    dictionary: "word=ledger",
    "prize-oracle": "",
    holidays: "country=PT",
    "air-quality": "city=Lisbon",
    quotations: "topic=money",
    "weather-mpp": "city=Lisbon",
    "quotations-mpp": "topic=money",
    "market-ticks": "symbol=AAPL",
    "quotes-silent": "topic=money",
  };
  if (entry.method === "POST") {
    return {
      url: entry.url,
      init: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "hello friend", to: "es" }) },
    };
  }
  const search = query[entry.name] ?? "";
  return { url: search ? `${entry.url}?${search}` : entry.url };
}
