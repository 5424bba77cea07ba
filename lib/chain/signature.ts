// A payment's signature checked as the token contract will check it (docs/contract.md, section 4, item 3), and
// any other signature of the wallet's (its agent budget's delegation, signing in) the same way:
// a key wallet by recovery, a deployed contract account by ERC-1271, an account not yet deployed
// by ERC-6492 (the signature says which factory deploys it, and that factory must be one the
// network allows). The chain is asked through viem's public-client `verifyTypedData`, within a
// time bound; a node that does not answer is told apart from a signature the account refuses.
import {
  BaseError,
  createPublicClient,
  custom,
  hashMessage,
  hashTypedData,
  HttpRequestError,
  InternalRpcError,
  isAddressEqual,
  isErc6492Signature,
  LimitExceededRpcError,
  parseErc6492Signature,
  ResourceUnavailableRpcError,
  TimeoutError,
  zeroAddress,
  type Hex,
  type PublicClient,
} from "viem";
import { verifyMessage, verifyTypedData } from "viem/actions";
import { publicClientFor, RPC_TIMEOUT_MS } from "./clients";
import { eip6492FactoriesOf, type NetworkConfig } from "./networks";
import { recoverSigner } from "./recover-signer";

/** The whole check, however many calls it makes: about one read with its retry. */
export const SIGNATURE_CHECK_TIMEOUT_MS = 2 * RPC_TIMEOUT_MS;

/** Who signs for the paying address: its own key, its deployed contract, or a contract not deployed yet. */
export type PaymentSigner = "key" | "contract" | "counterfactual";

/** EIP-712 typed data as viem verifies it; integer fields as bigint. */
export type SignedTypedData = {
  domain: { name?: string; version?: string; chainId?: number; verifyingContract?: Hex };
  types: Record<string, ReadonlyArray<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, unknown>;
};

export type VerifyPaymentSignatureParameters = {
  network: NetworkConfig;
  /**
   * The signing address: the `from` of a payment's authorization (the wallet the quote was made
   * for, or its agent budget's session key), the wallet that signed an agent budget's
   * delegation, or the wallet signing in (EIP-4361).
   */
  address: Hex;
  signature: Hex;
  /** Bound on the chain calls; SIGNATURE_CHECK_TIMEOUT_MS by default. */
  timeoutMs?: number;
} & (
  /** EIP-712 typed data (payments, the agent budget's delegation)... */
  | { typedData: SignedTypedData; message?: never }
  /** ...or a text message signed with EIP-191 (`personal_sign`: signing in). */
  | { message: string; typedData?: never }
);

export type VerifyPaymentSignatureReturnType =
  | { valid: true; signer: PaymentSigner }
  | { valid: false; signer: PaymentSigner; reason: "not-signed-by-account" }
  | { valid: false; signer: "counterfactual"; reason: "factory-not-allowed"; factory: Hex };

/** The chain could not be asked (no RPC configured, no answer, or no answer in time). */
export class SignatureCheckUnavailableError extends Error {
  override readonly name = "SignatureCheckUnavailableError";
}

export type VerifyPaymentSignatureErrorType = SignatureCheckUnavailableError;

export async function verifyPaymentSignature(parameters: VerifyPaymentSignatureParameters): Promise<VerifyPaymentSignatureReturnType> {
  const { network, address, signature } = parameters;
  const factory = deploymentFactory(signature);

  // A key wallet's own signature needs no chain: recovery gives its address.
  if (!factory && (await recoversTo(parameters, signature, address))) return { valid: true, signer: "key" };

  const watched = watchedClient(network);
  return withTimeout(parameters.timeoutMs ?? SIGNATURE_CHECK_TIMEOUT_MS, network, async () => {
    const code = await watched.client.getCode({ address }).catch((error: unknown) => {
      throw unavailable(network, error);
    });
    const signer: PaymentSigner = code && code !== "0x" ? "contract" : factory ? "counterfactual" : "key";
    // No code and no deployment: only recovery could have passed, and it did not.
    if (signer === "key") return { valid: false, signer, reason: "not-signed-by-account" };
    if (signer === "counterfactual" && factory && !eip6492FactoriesOf(network).some((allowed) => isAddressEqual(allowed, factory))) {
      return { valid: false, signer, reason: "factory-not-allowed", factory };
    }
    // viem runs ERC-1271 on a deployed account, and ERC-6492's deployless check (deploy, then
    // ERC-1271) on one that is not; a call the node refuses counts as an invalid signature.
    const checking =
      parameters.typedData !== undefined
        ? verifyTypedData(watched.client, { address, signature, ...parameters.typedData })
        : verifyMessage(watched.client, { address, signature, message: parameters.message });
    const valid = await checking.catch((error: unknown) => {
      throw unavailable(network, error);
    });
    if (!valid && watched.failure() !== undefined) throw unavailable(network, watched.failure());
    return valid ? { valid: true, signer } : { valid: false, signer, reason: "not-signed-by-account" };
  });
}

/** The factory of an ERC-6492 signature (one that carries how to deploy its account). */
function deploymentFactory(signature: Hex): Hex | undefined {
  if (!isErc6492Signature(signature)) return undefined;
  try {
    const { address } = parseErc6492Signature(signature);
    return address && !isAddressEqual(address, zeroAddress) ? address : undefined;
  } catch {
    return undefined;
  }
}

async function recoversTo(signed: Pick<VerifyPaymentSignatureParameters, "typedData" | "message">, signature: Hex, address: Hex): Promise<boolean> {
  try {
    const hash = signed.typedData !== undefined ? hashTypedData(signed.typedData) : hashMessage(signed.message ?? "");
    return isAddressEqual(await recoverSigner({ hash, signature }), address);
  } catch {
    return false;
  }
}

/**
 * The network's client behind a transport that notes any request the node did not answer:
 * viem's signature checks read a failed call as "invalid", and a silent node must not pass
 * for a refused signature.
 */
function watchedClient(network: NetworkConfig): { client: PublicClient; failure: () => unknown } {
  let base: PublicClient;
  try {
    base = publicClientFor(network);
  } catch (error) {
    throw unavailable(network, error);
  }
  let failure: unknown;
  const request = async (args: Parameters<PublicClient["request"]>[0]) => {
    try {
      return await base.request(args);
    } catch (error) {
      if (unanswered(error)) failure ??= error;
      throw error;
    }
  };
  // The base client retries; this layer does not add its own.
  const client = createPublicClient({ transport: custom({ request }, { retryCount: 0 }) });
  return { client, failure: () => failure };
}

/** A failure of the node or the way to it, not an answer about the call. */
function unanswered(error: unknown): boolean {
  if (!(error instanceof BaseError)) return true;
  return (
    error.walk(
      (cause) =>
        cause instanceof HttpRequestError ||
        cause instanceof TimeoutError ||
        cause instanceof InternalRpcError ||
        cause instanceof LimitExceededRpcError ||
        cause instanceof ResourceUnavailableRpcError,
    ) !== null
  );
}

function unavailable(network: NetworkConfig, cause: unknown): SignatureCheckUnavailableError {
  if (cause instanceof SignatureCheckUnavailableError) return cause;
  return new SignatureCheckUnavailableError(`${network.name}'s RPC did not answer the signature check.`, { cause });
}

async function withTimeout<T>(timeoutMs: number, network: NetworkConfig, run: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SignatureCheckUnavailableError(`${network.name}'s RPC did not answer the signature check in time.`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([run(), expired]);
  } finally {
    clearTimeout(timer);
  }
}
