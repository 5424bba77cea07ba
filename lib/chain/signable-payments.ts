// What a wallet is asked to sign for a payment, held to what the page knows of the chains it pays
// on (their USDC, and Permit2's one address): the page checks every typed data of a quote's list
// against this before its wallet sees it, so a quote that names another contract, token or chain
// is never signed, whatever the server sent.
import { PERMIT2_ADDRESS } from "./permit2-address";
import type { TypedDataValue } from "./typed-data";

/** Typed data as the page reads it from a quote (lib/client/wallet-signer.ts). */
type SignedTypedData = { domain: { chainId: number; verifyingContract: string }; primaryType: string; message: Record<string, TypedDataValue> };

/** What the page knows of a network whose payments its wallet signs: its chain and its USDC. */
export type SigningNetwork = { chainId: number; usdc: { address: string } };

/**
 * Why the page will not ask the wallet to sign this typed data for a payment, if it will not: the
 * wallet signs only USDC's own authorizations (EIP-3009 `TransferWithAuthorization`, and
 * `ReceiveWithAuthorization` for a channel's deposit) on a network this page pays on, verified by
 * that network's USDC contract, USDC's EIP-2612 permit for Permit2 alone, and Permit2's witness
 * transfer of that USDC (x402 `upto`). Whatever
 * else a quote's list holds (another contract, another token, another chain) is refused before the
 * wallet is asked, whatever the server sent.
 */
export function signingProblem(typedData: SignedTypedData, networks: readonly SigningNetwork[]): string | undefined {
  const network = networks.find((candidate) => candidate.chainId === typedData.domain.chainId);
  if (!network) return "This payment is for a chain this page does not pay on.";
  const usdc = network.usdc.address.toLowerCase();
  const contract = typedData.domain.verifyingContract.toLowerCase();
  switch (typedData.primaryType) {
    case "TransferWithAuthorization":
    case "ReceiveWithAuthorization":
      return contract === usdc ? undefined : "This authorization is not verified by the network's USDC contract.";
    case "Permit": {
      // USDC's EIP-2612 permit letting Permit2 move it (x402 `upto`'s gasless first payment).
      if (contract !== usdc) return "This permit is not verified by the network's USDC contract.";
      const spender = typedData.message.spender;
      return typeof spender === "string" && spender.toLowerCase() === PERMIT2_ADDRESS.toLowerCase() ? undefined : "This permit lets a contract other than Permit2 move your USDC.";
    }
    case "PermitWitnessTransferFrom": {
      if (contract !== PERMIT2_ADDRESS.toLowerCase()) return "This permit is not for Permit2.";
      const permitted = typedData.message.permitted;
      const token = typeof permitted === "object" ? permitted.token : undefined;
      return typeof token === "string" && token.toLowerCase() === usdc ? undefined : "This permit moves a token other than the network's USDC.";
    }
    default:
      return "This is not a payment the page signs with the wallet.";
  }
}
