// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

// The sandbox's stand-in for the x402 upto proxy (0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002),
// written to the interface @x402/evm ships (x402UptoPermit2ProxyABI) and to the x402 `upto`
// scheme specification: the payer signs a Permit2 witness transfer of at most `permitted.amount`
// to `witness.to`, to be collected only by `witness.facilitator`, not before `validAfter`; the
// facilitator settles the amount actually used, which may be less, or zero (nothing moves).
// No package ships the deployed proxy's bytecode, so the sandbox compiles this one
// (sandbox/contracts/compile.ts) and places it at the canonical address.

interface ISignatureTransfer {
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

interface IERC20Permit {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
}

contract x402UptoPermit2Proxy {
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    ISignatureTransfer public constant PERMIT2 = ISignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";

    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    event Settled();
    event SettledWithPermit();

    error AmountExceedsPermitted();
    error InvalidDestination();
    error InvalidOwner();
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();
    error UnauthorizedFacilitator();

    // Plain storage, not a constructor-set value: the runtime code is placed at its address
    // without running a constructor, and a fresh slot reads as "not entered".
    uint256 private entered;

    modifier nonReentrant() {
        if (entered == 1) revert ReentrancyGuardReentrantCall();
        entered = 1;
        _;
        entered = 0;
    }

    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settle(permit, amount, owner, witness, signature);
        emit Settled();
    }

    /// @notice The same, after submitting the payer's EIP-2612 permit giving Permit2 its allowance
    /// (the facilitator pays the gas). A permit already used (or front-run) is not an error: the
    /// Permit2 transfer then stands or falls on the allowance there is.
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value < permit.permitted.amount) revert Permit2612AmountMismatch();
        try IERC20Permit(permit.permitted.token).permit(
            owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s
        ) {} catch {}
        _settle(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (address(PERMIT2).code.length == 0) revert InvalidPermit2Address();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        // Zero used: nothing moves, and the signed permit stays unused until its deadline.
        if (amount == 0) return;
        bytes32 witnessHash =
            keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: amount}),
            owner,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
