"use client";
// The wallet around the page, loaded when it is wanted. The wallet stack (react-query, wagmi,
// RainbowKit and viem: most of the page's JavaScript) is loaded at once only when this browser
// remembers a connected wallet, which wagmi then reconnects; otherwise nobody is connected, the
// page says so at once, and the stack arrives when a person reaches for the connect button
// (connect-button.tsx). It is imported in two steps, each its own task, and rendered in a
// transition, so a phone's main thread is held in shorter stretches. It is rendered beside the
// page rather than around it, so its arrival does not remount the chat: it reports the wallet up
// into WalletContext, and puts the real connect button into the slot the top bar holds for it.
// Before any zod parse on the page: zod without its eval probe, which the content security policy forbids.
import "@/lib/client/zod-config";
import { startTransition, useCallback, useEffect, useMemo, useRef, useState, type ComponentType, type ReactNode } from "react";
import { remembersWallet } from "./remembered-wallet";
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

/** A task boundary: what comes after runs in a task of its own. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The import of the wallet stack, made once per page load and shared by every caller. It is
 * evaluated in two steps, each its own task (a module already evaluated is not evaluated again):
 * the wagmi configuration with the libraries it needs, then the stack's components. */
let stackImport: Promise<ComponentType<WalletStackProps>> | undefined;
function loadWalletStack(): Promise<ComponentType<WalletStackProps>> {
  if (!stackImport) {
    stackImport = (async () => {
      await import("./wagmi-config");
      await nextTask();
      return (await import("./wallet-stack")).WalletStack;
    })();
    // A failed download is tried again by the next caller.
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
  // undefined until the browser's storage has been read (the server and hydration know nothing).
  const [remembered, setRemembered] = useState<boolean | undefined>(undefined);
  const [wanted, setWanted] = useState(false);
  const [Stack, setStack] = useState<ComponentType<WalletStackProps> | undefined>(undefined);
  const [failed, setFailed] = useState(false);
  const [report, setReport] = useState<WalletReport | undefined>(undefined);
  const [balanceQuery, setBalanceQuery] = useState<BalanceQuery>({ network: undefined, refreshKey: 0 });
  const [connectTarget, setConnectTarget] = useState<HTMLElement | null>(null);
  const ready = useRef(deferred());

  useEffect(() => {
    const known = remembersWallet();
    // A transition: the page's render with the wallet's status yields between its parts.
    startTransition(() => {
      setRemembered(known);
      if (known) setWanted(true);
    });
  }, []);

  useEffect(() => {
    if (!wanted) return;
    let live = true;
    setFailed(false);
    loadWalletStack().then(
      // A transition: the stack's first render yields to the page between its parts.
      (component) => live && startTransition(() => setStack(() => component)),
      (error: unknown) => {
        console.error("The wallet could not be loaded", error);
        if (live) {
          setFailed(true);
          setWanted(false);
        }
      },
    );
    return () => {
      live = false;
    };
  }, [wanted]);

  // Ready: the stack has settled who is connected, or nothing is remembered (nobody is connected
  // until a person connects, whether or not the stack is on its way).
  const status: WalletStatus = report?.settled ? "ready" : failed ? "failed" : remembered === false ? "ready" : "loading";
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
  const loadWallet = useCallback(() => setWanted(true), []);
  // The page's render with a new wallet is a transition too: it yields between its parts.
  const onReport = useCallback((next: WalletReport) => startTransition(() => setReport(next)), []);

  const wallet = report ?? noWallet;
  const value = useMemo<WalletContextValue>(
    () => ({
      status,
      wallet: { address: wallet.address, chainId: wallet.chainId, connectorName: wallet.connectorName, sign: wallet.sign, actions: wallet.actions },
      balance: report?.balance,
      whenReady,
      loadWallet,
      requestBalance,
      setConnectTarget,
    }),
    [status, wallet.address, wallet.chainId, wallet.connectorName, wallet.sign, wallet.actions, report?.balance, whenReady, loadWallet, requestBalance],
  );

  return (
    <WalletContext.Provider value={value}>
      {children}
      {Stack ? <Stack setup={setup} balanceQuery={balanceQuery} connectTarget={connectTarget} onReport={onReport} /> : null}
    </WalletContext.Provider>
  );
}
