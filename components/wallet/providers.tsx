"use client";
// The wallet around the page, loaded after it. The wallet stack (react-query, wagmi, RainbowKit
// and viem: most of the page's JavaScript) is imported once the page has hydrated, so the chat
// paints and can be used before it arrives. It is rendered beside the page rather than around it,
// so its arrival does not remount the chat: it reports the wallet up into WalletContext, and puts
// the real connect button into the slot the top bar holds for it (connect-button.tsx).
// Before any zod parse on the page: zod without its eval probe, which the content security policy forbids.
import "@/lib/client/zod-config";
import { useCallback, useEffect, useMemo, useRef, useState, type ComponentType, type ReactNode } from "react";
import type { WalletSetup } from "./wagmi-config";
import {
  WalletContext,
  type BalanceQuery,
  type PaymentWallet,
  type WalletContextValue,
  type WalletReport,
  type WalletStatus,
} from "./wallet-context";
import type { WalletStackProps } from "./wallet-stack";

const noWallet: PaymentWallet = { address: undefined, chainId: undefined, connectorName: undefined, sign: undefined, actions: undefined };

/** The import of the wallet stack, made once per page load and shared by every caller. */
let stackImport: Promise<ComponentType<WalletStackProps>> | undefined;
function loadWalletStack(): Promise<ComponentType<WalletStackProps>> {
  if (!stackImport) {
    stackImport = import("./wallet-stack").then((module) => module.WalletStack);
    // A failed download is tried again by the next page that mounts.
    stackImport.catch(() => {
      stackImport = undefined;
    });
  }
  return stackImport;
}

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // Nobody need be waiting when it fails.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export function WalletProviders({ setup, children }: { setup: WalletSetup; children: ReactNode }) {
  const [Stack, setStack] = useState<ComponentType<WalletStackProps> | undefined>(undefined);
  const [failed, setFailed] = useState(false);
  const [report, setReport] = useState<WalletReport | undefined>(undefined);
  const [balanceQuery, setBalanceQuery] = useState<BalanceQuery>({ network: undefined, refreshKey: 0 });
  const [connectTarget, setConnectTarget] = useState<HTMLElement | null>(null);
  const ready = useRef(deferred());

  useEffect(() => {
    let live = true;
    loadWalletStack().then(
      (component) => live && setStack(() => component),
      (error: unknown) => {
        console.error("The wallet could not be loaded", error);
        if (live) setFailed(true);
      },
    );
    return () => {
      live = false;
    };
  }, []);

  const status: WalletStatus = Stack && report?.settled ? "ready" : failed ? "failed" : "loading";
  // After the commit, so a caller that waited renders with the wallet that is now there.
  useEffect(() => {
    if (status === "ready") ready.current.resolve();
    if (status === "failed") ready.current.reject(new Error("The wallet could not be loaded. Reload the page to try again."));
  }, [status]);

  const requestBalance = useCallback((query: BalanceQuery) => {
    setBalanceQuery((current) =>
      current.network?.id === query.network?.id && current.refreshKey === query.refreshKey ? current : query,
    );
  }, []);
  const whenReady = useCallback(() => ready.current.promise, []);

  const wallet = report ?? noWallet;
  const value = useMemo<WalletContextValue>(
    () => ({
      status,
      wallet: { address: wallet.address, chainId: wallet.chainId, connectorName: wallet.connectorName, sign: wallet.sign, actions: wallet.actions },
      balance: report?.balance,
      whenReady,
      requestBalance,
      setConnectTarget,
    }),
    [status, wallet.address, wallet.chainId, wallet.connectorName, wallet.sign, wallet.actions, report?.balance, whenReady, requestBalance],
  );

  return (
    <WalletContext.Provider value={value}>
      {children}
      {Stack ? <Stack setup={setup} balanceQuery={balanceQuery} connectTarget={connectTarget} onReport={setReport} /> : null}
    </WalletContext.Provider>
  );
}
