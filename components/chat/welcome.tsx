// The empty chat's welcome: what the agent does, and a few questions to start with, each put in the
// composer with a click (once the page is interactive).
import styles from "./chat.module.css";

const examples = [
  "What services can you pay for?",
  "Compare prices for weather",
  "What's the weather in Lisbon?",
  "How much have I spent this week?",
];

export function Welcome({ onPick, ready }: { onPick: (example: string) => void; ready: boolean }) {
  return (
    <div className={styles.welcome} data-welcome="">
      <h2 className={styles.welcomeTitle}>What can I get for you?</h2>
      <p className={styles.welcomeText}>
        I find paid x402 services, compare their prices and pay them in USDC within your limits. Every payment is signed by your
        own wallet.
      </p>
      <ul className={styles.examples}>
        {examples.map((example) => (
          <li key={example}>
            <button type="button" className={styles.example} onClick={() => onPick(example)} disabled={!ready}>
              {example}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
