// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

// The sandbox's stand-ins for the x402 `batch-settlement` contracts at their canonical addresses:
// x402BatchSettlement (0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003), ERC3009DepositCollector
// (0x4020806089470a89826cB9fB1f4059150b550004) and Permit2DepositCollector
// (0x4020425FAf3B746C082C2f942b4E5159887B0005). Written for the sandbox to the interface
// @x402/evm 2.27 ships (its batch-settlement ABI, EIP-712 types and collector data encodings) and
// to the x402 specification of the scheme (specs/schemes/batch-settlement). The upstream
// repository publishes its own source of these contracts; it was read for behaviour only, and
// this code is the sandbox's own. No package ships their bytecode, so the sandbox compiles this
// file (sandbox/contracts/compile.ts) and places the runtime code at the canonical addresses.
//
// Placed with anvil_setCode, no constructor ever runs here: nothing is set at construction. The
// EIP-712 domain separator is computed from block.chainid and address(this) on each use, each
// collector names the settlement contract by its canonical address (a constant), and the
// reentrancy lock lives in transient storage (EIP-1153), which starts empty in every transaction.

interface IERC20Minimal {
    function balanceOf(address owner) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
}

interface IERC1271 {
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);
}

interface IERC3009Receive {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;
}

interface IERC2612 {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
}

interface IPermit2SignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

/// Pulls a deposit from the payer into the settlement contract (its only caller). The settlement
/// contract checks afterwards that its own token balance rose by exactly `amount`.
interface IDepositCollector {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external;
}

/// Token transfers that accept both ERC-20 styles (a `true` return, or none) and fail on anything else.
library TokenTransfer {
    error TokenTransferFailed();

    function send(address token, address to, uint256 amount) internal {
        (bool ok, bytes memory returned) = token.call(abi.encodeCall(IERC20Minimal.transfer, (to, amount)));
        if (!ok || (returned.length != 0 && !abi.decode(returned, (bool)))) revert TokenTransferFailed();
    }
}

/// ECDSA recovery (65-byte signatures, low `s` only) and the ERC-1271 fallback for contract signers.
library Signatures {
    /// secp256k1n / 2: a higher `s` is the malleable twin of a valid signature.
    uint256 private constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    /// The signer of `digest`, or address(0) when the signature is malformed or does not recover.
    function recover(bytes32 digest, bytes memory signature) internal pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        if (uint256(s) > HALF_ORDER) return address(0);
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return address(0);
        return ecrecover(digest, v, r, s);
    }

    /// True when `signer` signed `digest`: by ECDSA, or, for a contract, by its ERC-1271 answer.
    function isValidNow(address signer, bytes32 digest, bytes memory signature) internal view returns (bool) {
        if (signer == address(0)) return false;
        address recovered = recover(digest, signature);
        if (recovered == signer) return true;
        if (signer.code.length == 0) return false;
        (bool ok, bytes memory returned) =
            signer.staticcall(abi.encodeCall(IERC1271.isValidSignature, (digest, signature)));
        return ok && returned.length >= 32 && abi.decode(returned, (bytes32)) == bytes32(IERC1271.isValidSignature.selector);
    }
}

/// The channel contract of the x402 `batch-settlement` scheme: a payer's deposit held in a channel
/// named by the EIP-712 hash of its configuration; the receiver side claims cumulative vouchers
/// signed by the payer's authorizer, in batches, and sweeps what it claimed with `settle`; what
/// was not claimed goes back to the payer by a cooperative refund (the receiver side's act or
/// signature) or by the payer's own withdrawal, `withdrawDelay` seconds after asking for it.
contract x402BatchSettlement {
    struct ChannelConfig {
        address payer;
        /// Signs vouchers (ECDSA); zero means the payer signs them (ERC-1271 for a contract payer).
        address payerAuthorizer;
        address receiver;
        /// Authorizes claims and refunds; never zero.
        address receiverAuthorizer;
        address token;
        uint40 withdrawDelay;
        bytes32 salt;
    }

    struct ChannelState {
        /// Deposited, less what was refunded or withdrawn. Claimed amounts stay counted in it.
        uint128 balance;
        /// Cumulative amount the receiver side claimed: only ever grows.
        uint128 totalClaimed;
    }

    struct WithdrawalState {
        uint128 amount;
        /// When the payer asked; zero when no withdrawal is pending.
        uint40 initiatedAt;
    }

    struct ReceiverState {
        uint128 totalClaimed;
        uint128 totalSettled;
    }

    struct Voucher {
        ChannelConfig channel;
        uint128 maxClaimableAmount;
    }

    /// A voucher and the cumulative total the receiver side claims with it (a total, not a delta,
    /// so a claim replayed after it landed changes nothing).
    struct VoucherClaim {
        Voucher voucher;
        bytes signature;
        uint128 totalClaimed;
    }

    uint40 public constant MIN_WITHDRAW_DELAY = 15 minutes;
    uint40 public constant MAX_WITHDRAW_DELAY = 30 days;

    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 public constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 public constant CLAIM_ENTRY_TYPEHASH =
        keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    bytes32 public constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("x402 Batch Settlement");
    bytes32 private constant VERSION_HASH = keccak256("1");

    mapping(bytes32 channelId => ChannelState) public channels;
    /// The nonce the next signed refund must carry; every refund (signed or direct) advances it.
    mapping(bytes32 channelId => uint256) public refundNonce;
    mapping(bytes32 channelId => WithdrawalState) public pendingWithdrawals;
    mapping(address receiver => mapping(address token => ReceiverState)) public receivers;

    /// Transient: clear at the start of every transaction, and no constructor needed to set it.
    bool private transient entered;

    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event ChannelClosed(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance);
    event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter);
    event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount);

    error InvalidChannel();
    error ZeroDeposit();
    error DepositOverflow();
    error InvalidCollector();
    error DepositCollectionFailed();
    error WithdrawDelayOutOfRange();
    error EmptyBatch();
    error InvalidSignature();
    error NotReceiverAuthorizer();
    error NotAuthorizedToClaim();
    error NotAuthorizedToRefund();
    error ClaimExceedsCeiling();
    error ClaimExceedsBalance();
    error InvalidRefundNonce();
    error ZeroRefund();
    error NotAuthorizedToWithdraw();
    error NothingToWithdraw();
    error WithdrawAmountExceedsAvailable();
    error WithdrawalAlreadyPending();
    error WithdrawalNotPending();
    error WithdrawDelayNotElapsed();
    error ReentrantCall();

    modifier nonReentrant() {
        if (entered) revert ReentrantCall();
        entered = true;
        _;
        entered = false;
    }

    // ---------------------------------------------------------------------------------------
    // Deposits
    // ---------------------------------------------------------------------------------------

    /// Adds `amount` to the channel of `config`, pulled from the payer by `collector` (which is
    /// given `collectorData`: the payer's signed authorization). The channel exists from its first
    /// deposit; anyone may submit one, since only the payer's authorization can move the payer's
    /// tokens, and a collector that moved less than `amount` here fails the whole deposit.
    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData)
        external
        nonReentrant
    {
        if (
            config.payer == address(0) || config.receiver == address(0) || config.receiverAuthorizer == address(0)
                || config.token == address(0)
        ) revert InvalidChannel();
        if (config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY) {
            revert WithdrawDelayOutOfRange();
        }
        if (amount == 0) revert ZeroDeposit();
        if (collector == address(0)) revert InvalidCollector();

        bytes32 channelId = getChannelId(config);
        ChannelState storage channel = channels[channelId];
        uint128 before = channel.balance;
        if (amount > type(uint128).max - before) revert DepositOverflow();
        // Credited before the collector runs, and undone with everything else if it falls short.
        channel.balance = before + amount;

        uint256 heldBefore = IERC20Minimal(config.token).balanceOf(address(this));
        IDepositCollector(collector).collect(config.payer, config.token, amount, channelId, collectorData);
        if (IERC20Minimal(config.token).balanceOf(address(this)) != heldBefore + amount) {
            revert DepositCollectionFailed();
        }

        if (before == 0 && channel.totalClaimed == 0) emit ChannelCreated(channelId, config);
        emit Deposited(channelId, msg.sender, amount, before + amount);
    }

    // ---------------------------------------------------------------------------------------
    // Claims and settlement
    // ---------------------------------------------------------------------------------------

    /// Records claims sent by the receiver side itself: each row's channel must name the caller
    /// as its receiver or receiverAuthorizer. Moves no tokens (`settle` does).
    function claim(VoucherClaim[] calldata voucherClaims) external nonReentrant {
        if (voucherClaims.length == 0) revert EmptyBatch();
        for (uint256 i = 0; i < voucherClaims.length; ++i) {
            ChannelConfig calldata config = voucherClaims[i].voucher.channel;
            if (msg.sender != config.receiver && msg.sender != config.receiverAuthorizer) {
                revert NotAuthorizedToClaim();
            }
            _applyClaim(voucherClaims[i]);
        }
    }

    /// Records claims relayed by anyone, authorized by the receiverAuthorizer's EIP-712 signature
    /// of the whole batch (`ClaimBatch`); every row must share that receiverAuthorizer.
    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature)
        external
        nonReentrant
    {
        if (voucherClaims.length == 0) revert EmptyBatch();
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        if (!Signatures.isValidNow(authorizer, getClaimBatchDigest(voucherClaims), authorizerSignature)) {
            revert InvalidSignature();
        }
        for (uint256 i = 0; i < voucherClaims.length; ++i) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != authorizer) revert NotReceiverAuthorizer();
            _applyClaim(voucherClaims[i]);
        }
    }

    /// Sends `receiver` everything claimed for it in `token` and not yet sent. Anyone may call it:
    /// the tokens can only go to the receiver.
    function settle(address receiver, address token) external nonReentrant {
        ReceiverState storage state = receivers[receiver][token];
        uint128 amount = state.totalClaimed - state.totalSettled;
        if (amount == 0) return;
        state.totalSettled = state.totalClaimed;
        TokenTransfer.send(token, receiver, amount);
        emit Settled(receiver, token, msg.sender, amount);
    }

    // ---------------------------------------------------------------------------------------
    // Refunds and withdrawals
    // ---------------------------------------------------------------------------------------

    /// A cooperative refund sent by the receiver side itself.
    function refund(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.receiver && msg.sender != config.receiverAuthorizer) revert NotAuthorizedToRefund();
        _refund(config, amount);
    }

    /// A cooperative refund relayed by anyone, authorized by the receiverAuthorizer's EIP-712
    /// `Refund` signature for the channel's current refund nonce.
    function refundWithSignature(
        ChannelConfig calldata config,
        uint128 amount,
        uint256 nonce,
        bytes calldata receiverAuthorizerSignature
    ) external nonReentrant {
        bytes32 channelId = getChannelId(config);
        if (nonce != refundNonce[channelId]) revert InvalidRefundNonce();
        if (!Signatures.isValidNow(
                config.receiverAuthorizer, getRefundDigest(channelId, nonce, amount), receiverAuthorizerSignature
            )) {
            revert InvalidSignature();
        }
        _refund(config, amount);
    }

    /// The payer's way out without the receiver: asks for `amount` (at most what is unclaimed now)
    /// back, payable `withdrawDelay` seconds later. The receiver side can still claim meanwhile.
    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert NotAuthorizedToWithdraw();
        if (amount == 0) revert NothingToWithdraw();
        bytes32 channelId = getChannelId(config);
        WithdrawalState storage withdrawal = pendingWithdrawals[channelId];
        if (withdrawal.initiatedAt != 0) revert WithdrawalAlreadyPending();
        ChannelState storage channel = channels[channelId];
        if (amount > channel.balance - channel.totalClaimed) revert WithdrawAmountExceedsAvailable();

        withdrawal.amount = amount;
        withdrawal.initiatedAt = uint40(block.timestamp);
        emit WithdrawInitiated(channelId, amount, uint40(block.timestamp) + config.withdrawDelay);
    }

    /// Pays the pending withdrawal once its delay has passed: what was asked for, or what is still
    /// unclaimed if claims landed meanwhile, to the payer.
    function finalizeWithdraw(ChannelConfig calldata config) external nonReentrant {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert NotAuthorizedToWithdraw();
        bytes32 channelId = getChannelId(config);
        WithdrawalState storage withdrawal = pendingWithdrawals[channelId];
        if (withdrawal.initiatedAt == 0) revert WithdrawalNotPending();
        if (block.timestamp < uint256(withdrawal.initiatedAt) + config.withdrawDelay) revert WithdrawDelayNotElapsed();

        ChannelState storage channel = channels[channelId];
        uint128 unclaimed = channel.balance - channel.totalClaimed;
        uint128 amount = withdrawal.amount < unclaimed ? withdrawal.amount : unclaimed;
        withdrawal.amount = 0;
        withdrawal.initiatedAt = 0;
        channel.balance -= amount;

        emit WithdrawFinalized(channelId, msg.sender, amount);
        if (channel.balance == 0 && channel.totalClaimed == 0) emit ChannelClosed(channelId, config);
        if (amount > 0) TokenTransfer.send(config.token, config.payer, amount);
    }

    // ---------------------------------------------------------------------------------------
    // Batching
    // ---------------------------------------------------------------------------------------

    /// Runs several of this contract's own calls in one transaction (a claim, then a refund),
    /// each as if called directly; any failure undoes them all.
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i = 0; i < data.length; ++i) {
            (bool ok, bytes memory returned) = address(this).delegatecall(data[i]);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(returned, 0x20), mload(returned))
                }
            }
            results[i] = returned;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Reads
    // ---------------------------------------------------------------------------------------

    /// The channel's id: the EIP-712 hash of its configuration under this contract's domain, so
    /// the same configuration names another channel on another chain or contract.
    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(CHANNEL_CONFIG_TYPEHASH, config)));
    }

    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    /// The EIP-712 digest of `ClaimBatch { ClaimEntry[] claims }` for these rows, as the
    /// receiverAuthorizer signs it.
    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        bytes32[] memory entries = new bytes32[](voucherClaims.length);
        for (uint256 i = 0; i < voucherClaims.length; ++i) {
            entries[i] = keccak256(
                abi.encode(
                    CLAIM_ENTRY_TYPEHASH,
                    getChannelId(voucherClaims[i].voucher.channel),
                    voucherClaims[i].voucher.maxClaimableAmount,
                    voucherClaims[i].totalClaimed
                )
            );
        }
        return _typedDataHash(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, keccak256(abi.encodePacked(entries)))));
    }

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// ERC-5267: the domain wallets and tools read.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", "x402 Batch Settlement", "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    // ---------------------------------------------------------------------------------------
    // Internals
    // ---------------------------------------------------------------------------------------

    function _typedDataHash(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", DOMAIN_SEPARATOR(), structHash));
    }

    /// One claim row: a total at or below what is claimed already changes nothing; otherwise it
    /// must be within the payer's signed ceiling and the channel's balance, and the voucher must
    /// be signed by the payerAuthorizer (or, when that is zero, by the payer, ERC-1271 included).
    function _applyClaim(VoucherClaim calldata row) private {
        bytes32 channelId = getChannelId(row.voucher.channel);
        ChannelState storage channel = channels[channelId];
        if (row.totalClaimed <= channel.totalClaimed) return;
        if (row.totalClaimed > row.voucher.maxClaimableAmount) revert ClaimExceedsCeiling();
        if (row.totalClaimed > channel.balance) revert ClaimExceedsBalance();

        bytes32 digest = getVoucherDigest(channelId, row.voucher.maxClaimableAmount);
        address payerAuthorizer = row.voucher.channel.payerAuthorizer;
        bool signed = payerAuthorizer != address(0)
            ? Signatures.recover(digest, row.signature) == payerAuthorizer
            : Signatures.isValidNow(row.voucher.channel.payer, digest, row.signature);
        if (!signed) revert InvalidSignature();

        uint128 delta = row.totalClaimed - channel.totalClaimed;
        channel.totalClaimed = row.totalClaimed;
        receivers[row.voucher.channel.receiver][row.voucher.channel.token].totalClaimed += delta;
        emit Claimed(channelId, msg.sender, delta, row.totalClaimed);
    }

    /// Advances the refund nonce first (so a refund of nothing still uses up a signed one), then
    /// returns at most the unclaimed balance to the payer, shrinking or ending a pending withdrawal.
    function _refund(ChannelConfig calldata config, uint128 amount) private {
        if (amount == 0) revert ZeroRefund();
        bytes32 channelId = getChannelId(config);
        refundNonce[channelId] += 1;

        ChannelState storage channel = channels[channelId];
        uint128 unclaimed = channel.balance - channel.totalClaimed;
        uint128 refunded = amount < unclaimed ? amount : unclaimed;
        if (refunded == 0) return;
        channel.balance -= refunded;

        WithdrawalState storage withdrawal = pendingWithdrawals[channelId];
        if (withdrawal.initiatedAt != 0) {
            if (refunded >= withdrawal.amount) {
                withdrawal.amount = 0;
                withdrawal.initiatedAt = 0;
            } else {
                withdrawal.amount -= refunded;
            }
        }

        emit Refunded(channelId, msg.sender, refunded);
        if (channel.balance == 0 && channel.totalClaimed == 0) emit ChannelClosed(channelId, config);
        TokenTransfer.send(config.token, config.payer, refunded);
    }
}

/// Deposits by EIP-3009 `receiveWithAuthorization` (USDC): the payer signs a transfer to this
/// collector whose nonce is keccak256(abi.encode(channelId, salt)), so the authorization can fund
/// that one channel only. EIP-3009 lets only the recipient submit it, hence the hop through here.
contract ERC3009DepositCollector is IDepositCollector {
    /// The canonical settlement contract: its only caller, and where the tokens go.
    address public constant BATCH_SETTLEMENT = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;

    error OnlyBatchSettlement();

    /// `collectorData` is abi.encode(validAfter, validBefore, salt, signature).
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external
    {
        // Anyone else could pass a payer's signed authorization through here to themselves.
        if (msg.sender != BATCH_SETTLEMENT) revert OnlyBatchSettlement();
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) =
            abi.decode(collectorData, (uint256, uint256, uint256, bytes));
        IERC3009Receive(token).receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, keccak256(abi.encode(channelId, salt)), signature
        );
        TokenTransfer.send(token, BATCH_SETTLEMENT, amount);
    }
}

/// Deposits through Permit2's signature transfer, for any ERC-20: the payer signs a
/// PermitWitnessTransferFrom to this collector (the spender) whose witness is the channel id; an
/// optional EIP-2612 permit first gives Permit2 its allowance (submitted for the payer, who then
/// pays no gas; one already used is not an error, the transfer then stands on the allowance).
contract Permit2DepositCollector is IDepositCollector {
    address public constant BATCH_SETTLEMENT = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;
    IPermit2SignatureTransfer public constant PERMIT2 =
        IPermit2SignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    string public constant WITNESS_TYPE_STRING =
        "DepositWitness witness)DepositWitness(bytes32 channelId)TokenPermissions(address token,uint256 amount)";
    bytes32 public constant DEPOSIT_WITNESS_TYPEHASH = keccak256("DepositWitness(bytes32 channelId)");

    error OnlyBatchSettlement();

    /// `collectorData` is abi.encode(nonce, deadline, permit2Signature, eip2612PermitData), the
    /// last empty or abi.encode(value, deadline, v, r, s).
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external
    {
        if (msg.sender != BATCH_SETTLEMENT) revert OnlyBatchSettlement();
        (uint256 nonce, uint256 deadline, bytes memory signature, bytes memory eip2612PermitData) =
            abi.decode(collectorData, (uint256, uint256, bytes, bytes));
        if (eip2612PermitData.length > 0) _permitPermit2(token, payer, eip2612PermitData);
        PERMIT2.permitWitnessTransferFrom(
            IPermit2SignatureTransfer.PermitTransferFrom({
                permitted: IPermit2SignatureTransfer.TokenPermissions({token: token, amount: amount}),
                nonce: nonce,
                deadline: deadline
            }),
            IPermit2SignatureTransfer.SignatureTransferDetails({to: BATCH_SETTLEMENT, requestedAmount: amount}),
            payer,
            keccak256(abi.encode(DEPOSIT_WITNESS_TYPEHASH, channelId)),
            WITNESS_TYPE_STRING,
            signature
        );
    }

    /// Submits the payer's EIP-2612 permit giving Permit2 its allowance.
    function _permitPermit2(address token, address payer, bytes memory eip2612PermitData) private {
        (uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) =
            abi.decode(eip2612PermitData, (uint256, uint256, uint8, bytes32, bytes32));
        try IERC2612(token).permit(payer, address(PERMIT2), value, deadline, v, r, s) {} catch {}
    }
}
