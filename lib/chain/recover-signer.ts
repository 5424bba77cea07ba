// Who signed a hash: the address whose key made a 65-byte secp256k1 signature, as the chain's
// `ecrecover` finds it. Every approval, agent-budget grant and sign-in is checked this way before
// anything else happens, so it is on the critical path of a payment: the recovery runs in
// libsecp256k1 (Bitcoin Core's library, in tiny-secp256k1's WebAssembly build), about a tenth of
// the CPU time of the JavaScript curve viem uses. Where that build cannot load, viem's own
// recovery gives the same answer.
import { bytesToHex, hexToBytes, recoverAddress, type Hex } from "viem";
import { publicKeyToAddress } from "viem/accounts";

type Libsecp256k1 = {
  recover(hash: Uint8Array, signature: Uint8Array, recoveryId: 0 | 1 | 2 | 3, compressed?: boolean): Uint8Array | null;
};

let loading: Promise<Libsecp256k1 | undefined> | undefined;

function libsecp256k1(): Promise<Libsecp256k1 | undefined> {
  loading ??= import("tiny-secp256k1").then(
    (module): Libsecp256k1 => module,
    () => undefined,
  );
  return loading;
}

export type RecoverSignerParameters = { hash: Hex; signature: Hex };
export type RecoverSignerReturnType = Hex;
/** The signature recovers no key: malformed, a recovery id other than 0/1 (27/28), or r and s off the curve. */
export class UnrecoverableSignatureError extends Error {
  override readonly name = "UnrecoverableSignatureError";
}
export type RecoverSignerErrorType = UnrecoverableSignatureError;

export async function recoverSigner({ hash, signature }: RecoverSignerParameters): Promise<RecoverSignerReturnType> {
  const lib = await libsecp256k1();
  let key: Uint8Array | null;
  try {
    if (!lib) return await recoverAddress({ hash, signature });
    // r, s and the recovery byte, which wallets write as 27/28 or as 0/1.
    const bytes = hexToBytes(signature);
    const v = bytes.length === 65 ? (bytes[64] ?? -1) : -1;
    const recoveryId = v === 27 || v === 28 ? v - 27 : v;
    if (recoveryId !== 0 && recoveryId !== 1) throw new Error("the signature is not 65 bytes with a recovery id of 0 or 1");
    key = lib.recover(hexToBytes(hash), bytes.subarray(0, 64), recoveryId, false);
  } catch (error) {
    throw new UnrecoverableSignatureError("the signature recovers no key", { cause: error });
  }
  if (!key) throw new UnrecoverableSignatureError("the signature recovers no key");
  return publicKeyToAddress(bytesToHex(key));
}
