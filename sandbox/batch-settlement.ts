/**
 * The x402 `batch-settlement` contracts on the sandbox chain, each at its canonical address: the
 * channel contract and its EIP-3009 and Permit2 deposit collectors. No package ships their
 * bytecode, so the sandbox's own (contracts/X402BatchSettlement.sol, written to @x402/evm's
 * interface and the scheme's specification, compiled by contracts/compile.ts) is placed there.
 * Their runtime code needs no constructor: nothing in it is set at deployment (the EIP-712
 * domain is computed from the chain id and the contract's own address on each use), so placing
 * the code is the whole deployment.
 *
 * Also the channel terms the sandbox's channel services share, and the ABI of the channel
 * contract's reads and of the payer's own calls (withdrawal), which @x402/evm does not export.
 */
import { BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS } from "@x402/evm";
import { computeChannelId } from "@x402/evm/batch-settlement/client";
import { createPublicClient, createTestClient, http, parseAbi, type Hex } from "viem";
import { foundry } from "viem/chains";
import { readBatchSettlementArtifact } from "./contracts/compile";

export { BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS };

/** The Permit2 deposit collector's canonical address (in @x402/evm's constants; not exported by its entry point). */
export const PERMIT2_DEPOSIT_COLLECTOR_ADDRESS: Hex = "0x4020425FAf3B746C082C2f942b4E5159887B0005";

/**
 * How long a payer waits between asking for its unclaimed deposit back and taking it, on every
 * sandbox channel: 900 s (15 minutes), the least the scheme allows (the contract and @x402/evm
 * refuse a channel below it). Tests pass it at once with anvil's `evm_increaseTime`.
 */
export const CHANNEL_WITHDRAW_DELAY_SECONDS = 900;

const CHANNEL_CONFIG = "(address payer, address payerAuthorizer, address receiver, address receiverAuthorizer, address token, uint40 withdrawDelay, bytes32 salt)";
const VOUCHER_CLAIM = `((${CHANNEL_CONFIG} channel, uint128 maxClaimableAmount) voucher, bytes signature, uint128 totalClaimed)`;

/** The channel contract as the sandbox and its tests call it (the whole interface @x402/evm uses, and the events the spec names). */
export const batchSettlementAbi = parseAbi([
  `function deposit(${CHANNEL_CONFIG} config, uint128 amount, address collector, bytes collectorData)`,
  `function claim(${VOUCHER_CLAIM}[] voucherClaims)`,
  `function claimWithSignature(${VOUCHER_CLAIM}[] voucherClaims, bytes authorizerSignature)`,
  "function settle(address receiver, address token)",
  `function refund(${CHANNEL_CONFIG} config, uint128 amount)`,
  `function refundWithSignature(${CHANNEL_CONFIG} config, uint128 amount, uint256 nonce, bytes receiverAuthorizerSignature)`,
  `function initiateWithdraw(${CHANNEL_CONFIG} config, uint128 amount)`,
  `function finalizeWithdraw(${CHANNEL_CONFIG} config)`,
  "function multicall(bytes[] data) returns (bytes[] results)",
  `function getChannelId(${CHANNEL_CONFIG} config) view returns (bytes32)`,
  "function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) view returns (bytes32)",
  "function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) view returns (bytes32)",
  `function getClaimBatchDigest(${VOUCHER_CLAIM}[] voucherClaims) view returns (bytes32)`,
  "function CHANNEL_CONFIG_TYPEHASH() view returns (bytes32)",
  "function channels(bytes32 channelId) view returns (uint128 balance, uint128 totalClaimed)",
  "function pendingWithdrawals(bytes32 channelId) view returns (uint128 amount, uint40 initiatedAt)",
  "function receivers(address receiver, address token) view returns (uint128 totalClaimed, uint128 totalSettled)",
  "function refundNonce(bytes32 channelId) view returns (uint256)",
  `event ChannelCreated(bytes32 indexed channelId, ${CHANNEL_CONFIG} config)`,
  `event ChannelClosed(bytes32 indexed channelId, ${CHANNEL_CONFIG} config)`,
  "event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance)",
  "event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed)",
  "event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount)",
  "event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount)",
  "event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter)",
  "event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount)",
  "error InvalidChannel()",
  "error ZeroDeposit()",
  "error DepositOverflow()",
  "error InvalidCollector()",
  "error DepositCollectionFailed()",
  "error WithdrawDelayOutOfRange()",
  "error EmptyBatch()",
  "error InvalidSignature()",
  "error NotReceiverAuthorizer()",
  "error NotAuthorizedToClaim()",
  "error NotAuthorizedToRefund()",
  "error ClaimExceedsCeiling()",
  "error ClaimExceedsBalance()",
  "error InvalidRefundNonce()",
  "error ZeroRefund()",
  "error NotAuthorizedToWithdraw()",
  "error NothingToWithdraw()",
  "error WithdrawAmountExceedsAvailable()",
  "error WithdrawalAlreadyPending()",
  "error WithdrawalNotPending()",
  "error WithdrawDelayNotElapsed()",
  "error ReentrantCall()",
  "error TokenTransferFailed()",
]);

/** Places the channel contract and both deposit collectors at their canonical addresses. */
export async function installBatchSettlement(rpcUrl: string): Promise<void> {
  const transport = http(rpcUrl);
  const testClient = createTestClient({ chain: foundry, mode: "anvil", transport });
  const publicClient = createPublicClient({ chain: foundry, transport });
  const { contracts } = readBatchSettlementArtifact();
  const placements: [Hex, Hex][] = [
    [BATCH_SETTLEMENT_ADDRESS, contracts.x402BatchSettlement.deployedBytecode as Hex],
    [ERC3009_DEPOSIT_COLLECTOR_ADDRESS, contracts.ERC3009DepositCollector.deployedBytecode as Hex],
    [PERMIT2_DEPOSIT_COLLECTOR_ADDRESS, contracts.Permit2DepositCollector.deployedBytecode as Hex],
  ];
  for (const [address, bytecode] of placements) await testClient.setCode({ address, bytecode });
  // The package computes channel ids itself: a contract that disagreed would fail every deposit
  // later, and obscurely, so a start checks one here.
  const probe = {
    payer: ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
    payerAuthorizer: PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
    receiver: BATCH_SETTLEMENT_ADDRESS,
    receiverAuthorizer: BATCH_SETTLEMENT_ADDRESS,
    token: BATCH_SETTLEMENT_ADDRESS,
    withdrawDelay: CHANNEL_WITHDRAW_DELAY_SECONDS,
    salt: `0x${"42".repeat(32)}`,
  } as const;
  const onChain = await publicClient.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "getChannelId", args: [probe] });
  const expected = computeChannelId(probe, await publicClient.getChainId());
  if (onChain !== expected) throw new Error(`the channel contract names a channel ${onChain}; @x402/evm names it ${expected}`);
}
