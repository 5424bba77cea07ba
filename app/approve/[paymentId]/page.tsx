// The approval page an AI app's payment links to (docs/contract.md, section 11). A server
// component: the same wallet setup as the chat page (lib/page-setup.ts); the view is client side.
import { connection } from "next/server";
import { ApprovalView } from "@/components/mcp/approval-view";
import { WalletProviders } from "@/components/wallet/providers";
import { readPageSetup } from "@/lib/page-setup";

export const metadata = { title: "Approve a payment · x402 payment agent" };

export default async function ApprovePage({ params }: { params: Promise<{ paymentId: string }> }) {
  await connection();
  const { walletSetup, networks } = await readPageSetup();
  const { paymentId } = await params;
  return (
    <WalletProviders setup={walletSetup}>
      <div className="page">
        <ApprovalView paymentId={paymentId} networks={networks} />
      </div>
    </WalletProviders>
  );
}
