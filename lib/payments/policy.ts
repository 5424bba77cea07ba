// What a door sets for the payments it asks the core for (docs/contract.md, sections 2 and 11):
// one policy type for both requests, each reading the parts that apply to it. The door's own
// cooldowns are claimed through it, by the core, so that every door meets the same refusals.
import type { CooldownClaim } from "@/lib/cooldown";
import type { RateLimiter } from "@/lib/rate-limit";
import type { BudgetGrant } from "./rails/rail";

export type DoorPolicy = {
  /**
   * What the door binds its quotes to (the chat: the conversation's digest; MCP: the grant): an
   * approval must bring the same.
   */
  binding: string;
  /**
   * Request A: where this quote counts as a message of its own (the chat: a quote in the same
   * request as a paid answer; MCP: each quote under a grant), the cooldown the core claims once the
   * service has asked to be paid, before anything is quoted. Within it, nothing is: the result is
   * `rate-limited`.
   */
  admission?: CooldownClaim;
  /**
   * Request A: the agent budget the quote may be paid from without a prompt (at or below
   * `threshold`, within what is left of it); or, where the door allows no more such payments
   * now, why not, in its words, shown on the quote.
   */
  budget?: { grant: BudgetGrant; threshold: bigint } | { grant: BudgetGrant; withheld: string };
  /**
   * Request B: the door's gate before the work an approval costs (the ledger, the signature
   * check, the chain reads): a caller past it is refused `rate-limited` before any of it.
   */
  gate?: { limiter: RateLimiter; key: string };
  /**
   * Request B: where the door counts messages (the chat's cooldown). An approval of a live quote
   * belongs to the message that made the quote and claims nothing; any other (a forged or spent
   * token, a quote past its time) counts as a message of its own and claims it, but its answer
   * (a refusal, or what happened to it) is never held back by the cooldown.
   */
  cooldown?: CooldownClaim;
};
