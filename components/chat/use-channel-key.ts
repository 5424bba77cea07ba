"use client";
// The page's channel key for the connected wallet (lib/client/channel-keys.ts): made in this
// browser when a wallet connects, its address sent with each request so that a service's
// pay-as-you-go channel can be paid, and its signer for what a channel quote asks of it (the
// first voucher with a deposit, each call's voucher after), at most the call's price on the card.
import { useEffect, useMemo, useState } from "react";
import { parseUsd } from "@/lib/money";
import type { PaymentStatus } from "@/lib/protocol/lines";
import type { ApprovalTypedData } from "@/lib/client/wallet-signer";

const loadKeys = () => import("@/lib/client/channel-keys");

export type ChannelKey = {
  /** The key's address, once it exists for the connected wallet. */
  address: `0x${string}` | undefined;
  /** Signs a channel quote's voucher for the connected wallet; undefined without a wallet or a key. */
  sign: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined;
};

export function useChannelKey(wallet: string | undefined): ChannelKey {
  const [address, setAddress] = useState<{ wallet: string; key: `0x${string}` }>();
  useEffect(() => {
    if (!wallet) return;
    let live = true;
    void loadKeys()
      .then((keys) => keys.ensureChannelKey(wallet))
      .then((key) => {
        if (live) setAddress({ wallet, key });
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [wallet]);
  const key = address && wallet && address.wallet === wallet ? address.key : undefined;
  const sign = useMemo(
    () =>
      wallet && key
        ? async (typedData: ApprovalTypedData, payment: PaymentStatus) => (await loadKeys()).signVoucher(wallet, typedData, parseUsd(payment.channel?.price ?? "0") ?? 0n)
        : undefined,
    [wallet, key],
  );
  return { address: key, sign };
}
