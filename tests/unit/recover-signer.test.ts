// The signer of an approval, a grant or a sign-in is the address the chain's ecrecover would
// find: libsecp256k1's recovery must agree with viem's on every signature, good or bad.
import fc from "fast-check";
import { bytesToHex, recoverAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { recoverSigner, UnrecoverableSignatureError } from "@/lib/chain/recover-signer";

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => bytesToHex(bytes));
// A private key must be non-zero and below the curve's order; these bounds keep it so.
const privateKey = fc.bigInt({ min: 1n, max: 2n ** 255n }).map((key): Hex => `0x${key.toString(16).padStart(64, "0")}`);

async function viemSigner(hash: Hex, signature: Hex): Promise<Hex | "refused"> {
  try {
    return await recoverAddress({ hash, signature });
  } catch {
    return "refused";
  }
}

async function ourSigner(hash: Hex, signature: Hex): Promise<Hex | "refused"> {
  try {
    return await recoverSigner({ hash, signature });
  } catch (error) {
    expect(error).toBeInstanceOf(UnrecoverableSignatureError);
    return "refused";
  }
}

describe("recoverSigner", () => {
  it("finds the key that signed, whether the wallet writes the recovery byte as 27/28 or 0/1", async () => {
    await fc.assert(
      fc.asyncProperty(privateKey, bytes32, async (key, hash) => {
        const account = privateKeyToAccount(key);
        const signature = await account.sign({ hash });
        expect(await recoverSigner({ hash, signature })).toBe(account.address);
        const v = Number.parseInt(signature.slice(130), 16);
        const zeroOne: Hex = `${signature.slice(0, 130)}${(v - 27).toString(16).padStart(2, "0")}` as Hex;
        expect(await recoverSigner({ hash, signature: zeroOne })).toBe(account.address);
      }),
      { numRuns: 40 },
    );
  });

  it("names someone else for a signature of another hash", async () => {
    const account = privateKeyToAccount(`0x${"11".repeat(32)}`);
    const signature = await account.sign({ hash: `0x${"aa".repeat(32)}` });
    expect(await recoverSigner({ hash: `0x${"ab".repeat(32)}`, signature })).not.toBe(account.address);
  });

  it("agrees with viem on any 65 bytes: the same signer, or both refuse", async () => {
    const v = fc.constantFrom(0, 1, 2, 27, 28, 29, 255);
    await fc.assert(
      fc.asyncProperty(bytes32, fc.uint8Array({ minLength: 64, maxLength: 64 }), v, async (hash, rs, recovery) => {
        const signature: Hex = `${bytesToHex(rs)}${recovery.toString(16).padStart(2, "0")}`;
        expect(await ourSigner(hash, signature)).toBe(await viemSigner(hash, signature));
      }),
      { numRuns: 200 },
    );
  });

  it("refuses what is not a 65-byte signature", async () => {
    const hash: Hex = `0x${"01".repeat(32)}`;
    for (const signature of ["0x", `0x${"11".repeat(64)}`, `0x${"11".repeat(66)}`, `0x${"00".repeat(64)}1b`] as Hex[]) {
      await expect(recoverSigner({ hash, signature })).rejects.toBeInstanceOf(UnrecoverableSignatureError);
    }
  });
});
