// A transaction on a chain without a public block explorer (the local sandbox): the link in a
// payment's `explorerUrl` lands here and shows what the chain itself says about it.
import { notFound } from "next/navigation";
import { findChainNetwork, getTransactionSummary, isTransactionId } from "@/lib/chain/transaction";
import { serverEnv } from "@/lib/env";
import { formatUnits } from "@/lib/money";

export default async function TransactionPage({ params }: { params: Promise<{ network: string; hash: string }> }) {
  const { network: rawNetwork, hash } = await params;
  const env = serverEnv();
  const networkId = decodeURIComponent(rawNetwork);
  const network = findChainNetwork(networkId, env);
  if (!network || !isTransactionId(network, hash)) notFound();
  const tx = await getTransactionSummary({ network, hash }).catch(() => undefined);
  const { decimals } = network.usdc;
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
            <dt>{tx.landed.unit}</dt>
            <dd>{tx.landed.number.toString()}</dd>
            <dt>Time</dt>
            <dd>{tx.timestamp ? tx.timestamp.toISOString() : "not known"}</dd>
            <dt>Submitted by</dt>
            <dd>
              <code>{tx.from}</code> (the facilitator, which pays the {"chainId" in network ? "gas" : "fee"})
            </dd>
            {tx.usdcTransfers.map((transfer, index) => (
              <div key={index} className="tx-transfer" data-testid="tx-transfer">
                <dt>USDC transfer</dt>
                <dd>
                  {formatUnits(transfer.value, decimals)} USDC from <code>{transfer.from}</code> to{" "}
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
