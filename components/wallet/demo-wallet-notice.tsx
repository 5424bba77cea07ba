// Says which wallet signs payments when the app runs on the local sandbox: the sandbox's demo
// wallet, an anvil development key that only ever holds sandbox money.
import styles from "./demo-wallet-notice.module.css";

export function DemoWalletNotice({ address }: { address: string }) {
  return (
    <p className={styles.notice} role="status" data-testid="demo-wallet" data-address={address}>
      Sandbox demo wallet{" "}
      <code className={styles.address} title={address}>
        {shortAddress(address)}
      </code>{" "}
      signs payments (a local development key).
    </p>
  );
}

function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}
