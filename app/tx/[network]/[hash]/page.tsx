// A transaction on a chain without a public block explorer (the local sandbox): the link in a
// payment's `explorerUrl` lands here and shows what the chain itself says about it.
import { notFound } from "next/navigation";
import { getTransactionSummary } from "@/lib/chain/transaction";
import { findNetwork } from "@/lib/chain/networks";
import { serverEnv } from "@/lib/env";
import { formatUnits } from "@/lib/money";

export default async function TransactionPage({ params }: { params: Promise<{ network: string; hash: string }> }) {
  const { network: rawNetwork, hash } = await params;
  const network = findNetwork(decodeURIComponent(rawNetwork), serverEnv());
  if (!network || !/^0x[0-9a-fA-F]{64}$/.test(hash)) notFound();
  const tx = await getTransactionSummary({ network, hash: hash as `0x${string}` }).catch(() => undefined);
  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">Transaction on {network.name}</h1>
        <p className="page-tagline">
          <code data-testid="tx-hash">{hash}</code>
        </p>
      </header>
      <main className="page-main tx-page">
        {tx ? (
          <dl className="tx-details" data-testid="tx-details">
            <dt>Status</dt>
            <dd data-testid="tx-status">{tx.status === "success" ? "Confirmed" : "Reverted"}</dd>
            <dt>Block</dt>
            <dd>{tx.blockNumber.toString()}</dd>
            <dt>Time</dt>
            <dd>{tx.timestamp.toISOString()}</dd>
            <dt>Submitted by</dt>
            <dd>
              <code>{tx.from}</code> (the facilitator, which pays the gas)
            </dd>
            {tx.usdcTransfers.map((transfer, index) => (
              <div key={index} className="tx-transfer" data-testid="tx-transfer">
                <dt>USDC transfer</dt>
                <dd>
                  {formatUnits(transfer.value, network.usdc.decimals)} USDC from <code>{transfer.from}</code> to{" "}
                  <code>{transfer.to}</code>
                </dd>
              </div>
            ))}
          </dl>
        ) : (
          <p data-testid="tx-missing">This transaction is not on the chain this server reads ({network.name}).</p>
        )}
        <p>
          <a href="/">Back to the chat</a>
        </p>
      </main>
    </div>
  );
}
