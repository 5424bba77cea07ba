"use client";
// The page's channel key for the connected wallet (lib/client/channel-keys.ts): made in this
// browser when a wallet connects, its address sent with each request so that a service's
// pay-as-you-go channel can be paid, and its signer for what a channel quote asks of it (the
// first voucher with a deposit, each call's voucher after), at most the call's price on the card.
import { useEffect, useMemo, useRef, useState } from "react";
import { loadChannelKeys as loadKeys } from "@/components/wallet/wallet-code";
import { nextTask } from "@/lib/lazy-load";
import { parseUsd, ZERO_USD } from "@/lib/money";
import type { PaymentStatus } from "@/lib/protocol/lines";
import type { ApprovalTypedData } from "@/lib/client/wallet-signer";

export type ChannelKey = {
  /** The key's address, once it exists for the connected wallet. */
  address: `0x${string}` | undefined;
  /** Signs a channel quote's voucher for the connected wallet; undefined without a wallet or a key. */
  sign: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined;
  /** The key's address once it is made (a moment after the wallet connects), or undefined if it cannot be; bounded. */
  ready: () => Promise<`0x${string}` | undefined>;
  /** The key's address for the connected wallet as soon as it is made, read at send time (not a render's). */
  current: () => `0x${string}` | undefined;
};

/** How long a message waits for the key being made before it leaves without it. */
const READY_WAIT_MS = 3_000;

export function useChannelKey(wallet: string | undefined): ChannelKey {
  const [address, setAddress] = useState<{ wallet: string; key: `0x${string}` }>();
  const making = useRef<{ wallet: string; key: Promise<`0x${string}` | undefined> }>(undefined);
  const latest = useRef<{ wallet: string; key: `0x${string}` }>(undefined);
  useEffect(() => {
    if (!wallet) return;
    let live = true;
    // Its code is fetched from a task of its own, not the commit's that brought the wallet, and
    // the key is made in the next one, not in the task that evaluates that code.
    const key = nextTask()
      .then(loadKeys)
      .then(async (keys) => {
        await nextTask();
        return keys.ensureChannelKey(wallet);
      })
      .catch(() => undefined);
    making.current = { wallet, key };
    void key.then((made) => {
      if (!live || !made) return;
      latest.current = { wallet, key: made };
      setAddress({ wallet, key: made });
    });
    return () => {
      live = false;
    };
  }, [wallet]);
  const key = address && wallet && address.wallet === wallet ? address.key : undefined;
  const sign = useMemo(
    () =>
      wallet && key
        ? async (typedData: ApprovalTypedData, payment: PaymentStatus) => (await loadKeys()).signVoucher(wallet, typedData, parseUsd(payment.channel?.price ?? "0") ?? ZERO_USD)
        : undefined,
    [wallet, key],
  );
  const ready = useMemo(
    () => async () => {
      const current = making.current;
      if (!wallet || current?.wallet !== wallet) return undefined;
      return Promise.race([current.key, new Promise<undefined>((resolve) => setTimeout(resolve, READY_WAIT_MS))]);
    },
    [wallet],
  );
  const current = useMemo(() => () => (wallet && latest.current?.wallet === wallet ? latest.current.key : undefined), [wallet]);
  return { address: key, sign, ready, current };
}
