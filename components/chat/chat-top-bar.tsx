"use client";
// The page's top bar: the title, the actions (Budget, AI apps, Settings and, where Solana is paid
// on, the Solana wallet; in a menu on a phone, top-bar-menu.tsx) and the wallet button.
import { AiAppsDialog } from "@/components/mcp/ai-apps-dialog";
import { SettingsPanel } from "@/components/settings/settings-panel";
import type { SettingsState } from "@/components/settings/use-settings";
import { WalletConnectButton } from "@/components/wallet/connect-button";
import { SolanaWalletButton } from "@/components/wallet/solana-button";
import type { SolanaWalletState } from "@/components/wallet/use-solana-wallet";
import type { PaymentWallet } from "@/components/wallet/wallet-context";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { TopBarMenu } from "./top-bar-menu";
import styles from "./chat.module.css";

export type ChatTopBarProps = {
  /** Whether the budget is open as a sheet over the chat (narrow screens). */
  budgetOpen: boolean;
  onToggleBudget: () => void;
  wallet: PaymentWallet;
  /** The EVM networks the server pays on, for the AI apps' grants. */
  networks: WalletNetwork[];
  /** Every network a payment may go out on, for the default-chain choice. */
  allNetworks: readonly { id: string; name: string }[];
  settings: SettingsState;
  signIn: (() => Promise<void>) | undefined;
  /** The Solana wallet; undefined where no Solana network is paid on. */
  solana: SolanaWalletState | undefined;
};

export function ChatTopBar({ budgetOpen, onToggleBudget, wallet, networks, allNetworks, settings, signIn, solana }: ChatTopBarProps) {
  return (
    <header className={styles.topBar}>
      <div className={styles.brand}>
        <h1 className={styles.title}>x402 payment agent</h1>
        <p className={styles.tagline}>Pay per use for x402 and MPP services, in USDC, within your limits.</p>
      </div>
      <div className={styles.controls}>
        <TopBarMenu>
          <button
            type="button"
            className={styles.budgetToggle}
            aria-expanded={budgetOpen}
            aria-controls="budget-sheet"
            onClick={onToggleBudget}
            data-testid="budget-toggle"
          >
            Budget
          </button>
          <AiAppsDialog wallet={wallet} networks={networks} limits={settings.settings.spendingLimits} signIn={signIn} />
          <SettingsPanel settings={settings} networks={allNetworks} />
          {solana ? <SolanaWalletButton wallet={solana} /> : null}
        </TopBarMenu>
        <WalletConnectButton />
      </div>
    </header>
  );
}
