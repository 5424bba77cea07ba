"use client";
// "AI apps": the button and dialog that give an AI app (a desktop or IDE assistant speaking MCP)
// access to this agent (docs/contract.md, section 11). The person names the app, sets the limits
// that are its ceiling (the page's by default) and how long it lasts; the wallet signs the grant
// (EIP-712); the server turns it into a bearer token, shown here once with ready-to-paste
// configuration for common clients. The grants given from this browser are listed (the server
// keeps no copy) and each can be revoked, which needs the wallet's own session. A grant starts no
// session, so the wallet signs in first when this browser's session is not its own: revoking, and
// the agent budget paying the app's small payments while the page is open, both need it. The
// dialog is rendered from its first opening on (use-modal-dialog.ts).
//
// Test ids: ai-apps-open, ai-apps-dialog, ai-apps-label, ai-apps-days, ai-apps-create,
// ai-apps-token, ai-apps-config-*, ai-apps-problem, ai-apps-grant, ai-apps-revoke.
import { useId, useRef, useState, type FormEvent } from "react";
import { useModalDialog } from "@/components/shared/use-modal-dialog";
import { CopyButton } from "@/components/shared/copy-button";
import { sameAddress } from "@/lib/address-text";
import type { PaymentWallet } from "@/components/wallet/wallet-context";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { limitKeys, usdError, type LimitKey, type SpendingLimitSettings } from "@/lib/client/settings";
import type { AccessGrant } from "@/lib/chain/access-grant";
import { MAX_GRANT_DAYS } from "@/lib/chain/grant-terms";
import { formatUsd, parseUsd, ZERO_USD } from "@/lib/money";
import { readGiven, writeGiven, type GivenGrant } from "./app-grants-store";
import styles from "./mcp.module.css";

const limitLabels: Record<LimitKey, string> = { daily: "Daily", weekly: "Weekly", monthly: "Monthly", perPayment: "Per payment" };
const durations = [1, 7, 30, MAX_GRANT_DAYS];

export type AiAppsDialogProps = {
  wallet: Pick<PaymentWallet, "address" | "chainId" | "actions">;
  networks: readonly WalletNetwork[];
  /** The page's limits: a new grant's by default. */
  limits: SpendingLimitSettings;
  /** Signs the wallet in (revoking needs its session); undefined without a wallet. */
  signIn: (() => Promise<void>) | undefined;
};

/**
 * This browser's session (the wallet it is signed in as) and the server's own address (its
 * APP_URL), which a grant names and an app connects to, whatever name this page was opened under.
 */
async function readSession(): Promise<{ wallet?: string; server?: string }> {
  const response = await fetch("/api/session", { cache: "no-store" }).catch(() => undefined);
  const body = (await response?.json().catch(() => undefined)) as { wallet?: unknown; uri?: unknown } | undefined;
  return {
    ...(typeof body?.wallet === "string" ? { wallet: body.wallet } : {}),
    ...(typeof body?.uri === "string" && URL.canParse(body.uri) ? { server: new URL(body.uri).origin } : {}),
  };
}

function randomId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function AiAppsDialog({ wallet, networks, limits, signIn }: AiAppsDialogProps) {
  const { dialog, rendered, show } = useModalDialog();
  const opener = useRef<HTMLButtonElement>(null);
  const formId = useId();
  const [label, setLabel] = useState("My AI app");
  const [days, setDays] = useState(30);
  const [draft, setDraft] = useState<SpendingLimitSettings>(limits);
  const [given, setGiven] = useState<GivenGrant[]>([]);
  const [issued, setIssued] = useState<{ token: string; label: string } | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [server, setServer] = useState<string | undefined>();

  const onClose = () => {
    // The token is shown once: closing the dialog forgets it.
    setIssued(undefined);
    opener.current?.focus();
  };

  const open = () => {
    setDraft(limits);
    setProblem(undefined);
    setGiven(readGiven());
    show();
    void readSession().then((session) => setServer(session.server));
  };

  const errors = Object.fromEntries(limitKeys.flatMap((key) => {
    const error = usdError(draft[key]);
    return error ? [[key, error]] : [];
  })) as Partial<Record<LimitKey, string>>;

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    const signer = wallet.actions?.signAccessGrant;
    if (!wallet.address || !signer) return setProblem("Connect your wallet first: the grant is signed by it.");
    if (Object.keys(errors).length > 0 || label.trim() === "") return setProblem("Give the app a name and each limit as an amount in USD.");
    const network = networks.find((candidate) => candidate.chainId === wallet.chainId) ?? networks[0];
    if (!network) return setProblem("This agent pays on no EVM network.");
    const owner = wallet.address;
    setBusy(true);
    const steps = async () => {
      const session = await readSession();
      if (session.server) setServer(session.server);
      const grant: AccessGrant = {
        id: randomId(),
        wallet: owner,
        label: label.trim(),
        limits: {
          daily: String(parseUsd(draft.daily) ?? ZERO_USD),
          weekly: String(parseUsd(draft.weekly) ?? ZERO_USD),
          monthly: String(parseUsd(draft.monthly) ?? ZERO_USD),
          perPayment: String(parseUsd(draft.perPayment) ?? ZERO_USD),
        },
        validUntil: Math.floor(Date.now() / 1000) + days * 86_400,
        // The server's own address: a grant is for this deployment, whatever name the page was opened under.
        server: session.server ?? window.location.origin,
      };
      if (signIn && !(session.wallet && sameAddress(session.wallet, owner))) {
        try {
          await signIn();
        } catch (error) {
          const reason = error instanceof Error ? error.message.split("\n")[0] : "";
          return setProblem(`Sign in with the wallet first: it lets only you revoke the app's access later${reason ? ` (${reason})` : ""}.`);
        }
      }
      let signature: string;
      try {
        signature = await signer(grant, network.chainId);
      } catch (error) {
        const reason = error instanceof Error ? error.message.split("\n")[0] : "";
        return setProblem(`The wallet did not sign the grant${reason ? `: ${reason}` : ""}.`);
      }
      const response = await fetch("/api/mcp/grants", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ grant, chainId: network.chainId, signature }),
      }).catch(() => undefined);
      const body = (await response?.json().catch(() => undefined)) as { token?: unknown; error?: { message?: unknown } } | undefined;
      if (!response?.ok || typeof body?.token !== "string") {
        return setProblem(typeof body?.error?.message === "string" ? body.error.message : "The server could not issue the grant. Please try again.");
      }
      const { server: _server, ...kept } = grant;
      const next = [{ ...kept, createdAt: Date.now() }, ...readGiven()];
      writeGiven(next);
      setGiven(next);
      setIssued({ token: body.token, label: grant.label });
    };
    // However it ends, the form is free again.
    await steps().finally(() => setBusy(false));
  };

  const revoke = async (grant: GivenGrant) => {
    setProblem(undefined);
    const send = () =>
      fetch("/api/mcp/grants", {
        method: "DELETE",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ id: grant.id, validUntil: grant.validUntil }),
      });
    setBusy(true);
    const steps = async () => {
      let response = await send().catch(() => undefined);
      // Revoking needs the wallet's session: signing in starts it, once.
      if (response?.status === 401 && signIn) {
        try {
          await signIn();
        } catch {
          return setProblem("Sign in with the wallet that gave the grant to revoke it.");
        }
        response = await send().catch(() => undefined);
      }
      if (!response?.ok) return setProblem("The grant could not be revoked. Please try again.");
      const next = readGiven().map((entry) => (entry.id === grant.id ? { ...entry, revoked: true } : entry));
      writeGiven(next);
      setGiven(next);
    };
    await steps().finally(() => setBusy(false));
  };

  const address = wallet.address;
  const mine = address ? given.filter((grant) => sameAddress(grant.wallet, address)) : [];
  const endpoint = server ? `${server}/api/mcp` : typeof window === "undefined" ? "/api/mcp" : `${window.location.origin}/api/mcp`;

  return (
    <>
      <button ref={opener} type="button" className={styles.opener} onClick={open} aria-haspopup="dialog" data-testid="ai-apps-open">
        AI apps
      </button>
      {rendered ? (
        <dialog ref={dialog} className={styles.dialog} aria-labelledby={`${formId}-title`} onClose={onClose} data-testid="ai-apps-dialog">
          <h2 id={`${formId}-title`} className={styles.title}>
            Connect an AI app
          </h2>
          <p className={styles.muted}>
            Let a desktop or IDE assistant that speaks MCP find, compare and pay x402 services for you. It pays only within the limits you
            set here, which count together with the chat&apos;s, and every payment still needs your wallet&apos;s approval in this page.
            The first time, your wallet signs in to this site, then signs the access.
          </p>
          {issued ? (
            <IssuedToken token={issued.token} label={issued.label} endpoint={endpoint} />
          ) : (
            <form onSubmit={(event) => void create(event)} noValidate>
              <div className={styles.fields}>
                <label className={styles.field}>
                  App name
                  <input value={label} maxLength={60} onChange={(event) => setLabel(event.target.value)} data-testid="ai-apps-label" />
                </label>
                <label className={styles.field}>
                  Lasts
                  <select value={days} onChange={(event) => setDays(Number(event.target.value))} data-testid="ai-apps-days">
                    {durations.map((value) => (
                      <option key={value} value={value}>
                        {value === 1 ? "1 day" : `${value} days`}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
              <fieldset className={styles.fields}>
                <legend>Its limits (USD)</legend>
                {limitKeys.map((key) => (
                  <label key={key} className={styles.field}>
                    {limitLabels[key]}
                    <input
                      inputMode="decimal"
                      value={draft[key]}
                      onChange={(event) => setDraft((current) => ({ ...current, [key]: event.target.value }))}
                      aria-invalid={errors[key] ? true : undefined}
                      data-testid={`ai-apps-limit-${key}`}
                    />
                  </label>
                ))}
              </fieldset>
              <div className={styles.actions}>
                <button type="submit" className={styles.primary} disabled={busy || !wallet.actions} data-testid="ai-apps-create">
                  {wallet.actions ? "Sign and create access" : "Connect a wallet first"}
                </button>
                <button type="button" className={styles.button} onClick={() => dialog.current?.close()}>
                  Close
                </button>
              </div>
            </form>
          )}
          {problem ? (
            <p className={styles.problem} role="alert" data-testid="ai-apps-problem">
              {problem}
            </p>
          ) : null}
          <h3 className={styles.heading}>Access given from this browser</h3>
          {mine.length === 0 ? (
            <p className={styles.muted}>None yet{wallet.address ? " for this wallet" : ""}.</p>
          ) : (
            <ul className={styles.grants}>
              {mine.map((grant) => {
                const ended = grant.revoked || grant.validUntil * 1000 <= Date.now();
                return (
                  <li key={grant.id} className={styles.grant} data-testid="ai-apps-grant">
                    <span>
                      <strong>{grant.label}</strong>: ${formatUsd(BigInt(grant.limits.daily))} a day, ${formatUsd(BigInt(grant.limits.perPayment))} a payment.{" "}
                      {grant.revoked ? "Revoked." : ended ? "Expired." : `Until ${new Date(grant.validUntil * 1000).toLocaleDateString()}.`}
                    </span>
                    {ended ? null : (
                      <button type="button" className={styles.button} disabled={busy} onClick={() => void revoke(grant)} data-testid="ai-apps-revoke">
                        Revoke
                      </button>
                    )}
                  </li>
                );
              })}
            </ul>
          )}
        </dialog>
      ) : null}
    </>
  );
}

/** The token, shown once, and the configuration to paste into common clients. */
function IssuedToken({ token, label, endpoint }: { token: string; label: string; endpoint: string }) {
  const configs: Array<{ id: string; title: string; text: string }> = [
    { id: "claude-code", title: "Claude Code (terminal)", text: `claude mcp add --transport http x402-agent ${endpoint} --header "Authorization: Bearer ${token}"` },
    {
      id: "cursor",
      title: "Cursor (~/.cursor/mcp.json) and other clients that speak HTTP",
      text: JSON.stringify({ mcpServers: { "x402-agent": { url: endpoint, headers: { Authorization: `Bearer ${token}` } } } }, null, 2),
    },
    {
      id: "vscode",
      title: "VS Code (.vscode/mcp.json)",
      text: JSON.stringify({ servers: { "x402-agent": { type: "http", url: endpoint, headers: { Authorization: `Bearer ${token}` } } } }, null, 2),
    },
    {
      id: "claude-desktop",
      title: "Claude Desktop and other stdio-only clients (the bridge in this project's bin/)",
      text: JSON.stringify(
        {
          mcpServers: {
            "x402-agent": { command: "node", args: ["/path/to/x402-payment-agent/bin/mcp-stdio.mjs"], env: { X402_MCP_URL: endpoint, X402_MCP_TOKEN: token } },
          },
        },
        null,
        2,
      ),
    },
  ];
  return (
    <div>
      <p className={styles.lead}>
        Access for <strong>{label}</strong> is ready. Copy its token now: it is shown only once, and anyone holding it can ask for payments
        (each still needs your approval).
      </p>
      <pre className={styles.code} data-testid="ai-apps-token">
        {token}
      </pre>
      <CopyButton text={token} label="Copy the access token" />
      {configs.map((config) => (
        <div key={config.id}>
          <h3 className={styles.heading}>{config.title}</h3>
          <pre className={styles.code} data-testid={`ai-apps-config-${config.id}`}>
            {config.text}
          </pre>
          <CopyButton text={config.text} label={`Copy the configuration for ${config.title}`} />
        </div>
      ))}
    </div>
  );
}
