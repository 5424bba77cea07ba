"use client";
// The wallet around the page, loaded when it is wanted, in two parts. The wallet stack
// (react-query, wagmi and viem) is loaded at once only when this browser remembers a connected
// wallet, which wagmi then reconnects alone; RainbowKit (its provider, modal and button: the
// largest part) only when a person reaches for the wallet button (connect-button.tsx), which until
// then is drawn without it. With nothing remembered nobody is connected, and the page says so at
// once. The stack is imported in two steps, each its own task, and each part is rendered in a
// transition, so a phone's main thread is held in shorter stretches. They are rendered beside the
// page rather than around it, so their arrival does not remount the chat: the stack reports the
// wallet up into WalletContext, and RainbowKit puts its button into the slot the top bar holds.
// Before any zod parse on the page: zod without its eval probe, which the content security policy forbids.
import "@/lib/client/zod-config";
import { startTransition, useCallback, useEffect, useMemo, useRef, useState, type ComponentType, type ReactNode } from "react";
import { remembersWallet } from "./remembered-wallet";
import { loadWalletButtonModule, loadWalletStackModule } from "./wallet-code";
import type { WalletSetup } from "./wagmi-config";
import {
  WalletContext,
  type BalanceQuery,
  type PaymentWallet,
  type WalletContextValue,
  type WalletReport,
  type WalletStatus,
} from "./wallet-context";
import type { WalletButtonProps } from "./wallet-button";
import type { WalletStackProps } from "./wallet-stack";

const noWallet: PaymentWallet = { address: undefined, chainId: undefined, connectorName: undefined, sign: undefined, actions: undefined };

/** The wallet stack, in two steps, each its own task (wallet-code.ts): the wagmi configuration with the libraries it needs,
 * then the stack's components. */
const loadWalletStack = async (): Promise<ComponentType<WalletStackProps>> => (await loadWalletStackModule()).WalletStack;

/** RainbowKit's provider and button. */
const loadWalletButton = async (): Promise<ComponentType<WalletButtonProps>> => (await loadWalletButtonModule()).WalletButton;

/** The component `load` brings, once `wanted`; rendered in a transition, so its first render
 * yields to the page between its parts. */
function useLoaded<P>(wanted: boolean, load: () => Promise<ComponentType<P>>, onFailure: (error: unknown) => void) {
  const [component, setComponent] = useState<ComponentType<P> | undefined>(undefined);
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    load().then(
      (loaded) => live && startTransition(() => setComponent(() => loaded)),
      (error: unknown) => live && onFailure(error),
    );
    return () => {
      live = false;
    };
  }, [wanted, load, onFailure]);
  return component;
}

const sameQuery = (one: BalanceQuery, other: BalanceQuery) => one.network?.id === other.network?.id && one.refreshKey === other.refreshKey;

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
  // The stack is wanted to reconnect a remembered wallet; the stack and RainbowKit's button, once a
  // person reaches for the wallet button.
  const [wanted, setWanted] = useState(false);
  const [buttonWanted, setButtonWanted] = useState(false);
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

  const onFailure = useCallback((error: unknown) => {
    console.error("The wallet could not be loaded", error);
    setFailed(true);
    setWanted(false);
    setButtonWanted(false);
  }, []);
  const Stack = useLoaded(wanted, loadWalletStack, onFailure);
  const Button = useLoaded(buttonWanted, loadWalletButton, onFailure);

  // Ready: the stack has settled who is connected, or nothing is remembered (nobody is connected
  // until a person connects, whether or not the stack is on its way).
  const status: WalletStatus = report?.settled ? "ready" : failed ? "failed" : remembered === false ? "ready" : "loading";
  // After the commit, so a caller that waited renders with the wallet that is now there.
  useEffect(() => {
    if (status === "ready") ready.current.resolve();
    if (status === "failed") ready.current.reject(new Error("The wallet could not be loaded. Reload the page to try again."));
  }, [status]);

  // A transition: asked for as the page mounts, and the page's render for it yields between its parts.
  const requestBalance = useCallback((query: BalanceQuery) => {
    startTransition(() => setBalanceQuery((current) => (sameQuery(current, query) ? current : query)));
  }, []);
  const whenReady = useCallback(() => ready.current.promise, []);
  const loadWallet = useCallback(() => {
    setFailed(false);
    setWanted(true);
    setButtonWanted(true);
  }, []);
  // The page's render with a new wallet is a transition too: it yields between its parts.
  const onReport = useCallback((next: WalletReport) => startTransition(() => setReport(next)), []);

  const { address, chainId, connectorName, sign, actions } = report ?? noWallet;
  // The same object while the wallet is the same: a balance read does not make the page's wallet new.
  const wallet = useMemo<PaymentWallet>(() => ({ address, chainId, connectorName, sign, actions }), [address, chainId, connectorName, sign, actions]);
  const balance = report?.balance;
  const value = useMemo<WalletContextValue>(
    () => ({
      status,
      wallet,
      balance,
      chainCount: Math.max(1, setup.networks.length),
      loadFailed: failed,
      whenReady,
      loadWallet,
      requestBalance,
      setConnectTarget,
    }),
    [status, wallet, balance, setup.networks.length, failed, whenReady, loadWallet, requestBalance],
  );

  return (
    <WalletContext.Provider value={value}>
      {children}
      {Stack ? <Stack setup={setup} balanceQuery={balanceQuery} Button={Button} connectTarget={connectTarget} onReport={onReport} /> : null}
    </WalletContext.Provider>
  );
}
