// The agent budget's delegation (payments without a prompt, within a budget the chain enforces):
// what the person's wallet signs when it lets a session key in the browser pay small things
// without a prompt. `{ wallet, session, maxAmount, validUntil, networks }` as EIP-712 typed data:
// the session address may pay, in the wallet's name and against the wallet's limits, up to
// `maxAmount` atomic USDC in all, until `validUntil`, on these networks. The chain's own wall is
// the session address's balance, which holds only what the person moved there.
// Free of server imports: the page builds the same typed data to have the wallet sign it.

/** The delegation as it travels in a request and is signed: amounts and times as decimal strings' values. */
export type AgentBudgetDelegation = {
  wallet: `0x${string}`;
  session: `0x${string}`;
  /** Atomic USDC units (micro-dollars), as a decimal string. */
  maxAmount: string;
  /** Unix seconds. */
  validUntil: number;
  /** CAIP-2 network ids the session may pay on. */
  networks: string[];
};

/** A delegation with the wallet's signature of it, as the page sends it with every request. */
export type AgentBudgetGrant = AgentBudgetDelegation & { signature: `0x${string}` };

/** No chain id in the domain: the delegation names its networks itself, and one grant may span several. */
export const AGENT_BUDGET_DOMAIN = { name: "x402 Agent Budget", version: "1" } as const;

export const agentBudgetTypes = {
  AgentBudget: [
    { name: "wallet", type: "address" },
    { name: "session", type: "address" },
    { name: "maxAmount", type: "uint256" },
    { name: "validUntil", type: "uint256" },
    { name: "networks", type: "string[]" },
  ],
} as const;

/** The EIP-712 typed data of a delegation, integers as bigint, as wallets and viem sign and verify it. */
export function delegationTypedData(delegation: AgentBudgetDelegation) {
  return {
    domain: AGENT_BUDGET_DOMAIN,
    types: agentBudgetTypes,
    primaryType: "AgentBudget" as const,
    message: {
      wallet: delegation.wallet,
      session: delegation.session,
      maxAmount: BigInt(delegation.maxAmount),
      validUntil: BigInt(delegation.validUntil),
      networks: delegation.networks,
    },
  };
}

/** The delegation part of a grant, without its signature. */
export function delegationOf(grant: AgentBudgetGrant): AgentBudgetDelegation {
  const { wallet, session, maxAmount, validUntil, networks } = grant;
  return { wallet, session, maxAmount, validUntil, networks };
}
