// The networks the page's wallets are offered on, as the server tells the page (lib/page-setup.ts):
// the EVM wallet's (./wallet-networks.ts) and the Solana wallet's, ids and names. Server-side:
// the page's own code reads ./wallet-networks.ts alone, without the Solana kit this file loads.
import type { ChainEnv } from "./configuration";
import { findSolanaNetwork } from "./solana";
import { walletNetworks, type WalletNetwork } from "./wallet-networks";

export function pageNetworks(env: ChainEnv): { networks: WalletNetwork[]; solanaNetworks: { id: string; name: string }[] } {
  const solanaNetworks = env.X402_NETWORKS.flatMap((id) => {
    const found = findSolanaNetwork(id, env);
    return found ? [{ id: found.id, name: found.name }] : [];
  });
  return { networks: walletNetworks(env), solanaNetworks };
}
