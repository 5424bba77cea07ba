// What is kept where (docs/contract.md, section 5), one click away from the chat.
import styles from "./chat.module.css";

export function PrivacyNote() {
  return (
    <details className={styles.privacy} data-testid="privacy-note">
      <summary>Privacy</summary>
      <ul>
        <li>
          Your conversation is not stored or logged on the server; your browser resends it with each message, and keeps it only for
          this tab (a reload keeps it, closing the tab or New chat ends it).
        </li>
        <li>Your wallet signs every payment. The server never sees a private key or recovery phrase, and refuses messages that contain one.</li>
        <li>Your limits and preferences stay in this browser and travel with each request.</li>
        <li>The server keeps a ledger of payments by wallet address (amounts, services, transaction hashes), as public on chain as the transfers themselves, to enforce your limits.</li>
        <li>Messages go to the model provider (Google Gemini) to be answered, unless the offline model is in use.</li>
      </ul>
    </details>
  );
}
