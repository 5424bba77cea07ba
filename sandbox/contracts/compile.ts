/**
 * Compiles the sandbox's own contracts with `solc` from npm, and, run as a script
 * (`npx tsx sandbox/contracts/compile.ts`), writes the artifacts the sandbox places on its chain:
 * the upto proxy (X402UptoPermit2Proxy.sol → x402-upto-permit2-proxy.json) and the
 * batch-settlement channel contract with its two deposit collectors (X402BatchSettlement.sol →
 * x402-batch-settlement.json). The artifacts are committed so a start needs no compiler;
 * tests/integration/sandbox/upto-chain.test.ts and channels-chain.test.ts recompile and hold
 * each artifact to its source.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";
import { z } from "zod";

const here = dirname(fileURLToPath(import.meta.url));
export const UPTO_PROXY_SOURCE = join(here, "X402UptoPermit2Proxy.sol");
export const UPTO_PROXY_ARTIFACT = join(here, "x402-upto-permit2-proxy.json");
const UPTO_CONTRACT = "x402UptoPermit2Proxy";

export const BATCH_SETTLEMENT_SOURCE = join(here, "X402BatchSettlement.sol");
export const BATCH_SETTLEMENT_ARTIFACT = join(here, "x402-batch-settlement.json");
/** The contracts of X402BatchSettlement.sol that go on the chain, each at its canonical address. */
export const BATCH_SETTLEMENT_CONTRACTS = ["x402BatchSettlement", "ERC3009DepositCollector", "Permit2DepositCollector"] as const;
export type BatchSettlementContract = (typeof BATCH_SETTLEMENT_CONTRACTS)[number];

const settingsSchema = z.object({ optimizer: z.object({ enabled: z.boolean(), runs: z.number().int() }), evmVersion: z.string() });
const bytecodeSchema = z.string().regex(/^0x[0-9a-f]+$/);

export const uptoProxyArtifactSchema = z.object({
  contract: z.literal(UPTO_CONTRACT),
  compiler: z.string(),
  settings: settingsSchema,
  deployedBytecode: bytecodeSchema,
});
export type UptoProxyArtifact = z.infer<typeof uptoProxyArtifactSchema>;

export const batchSettlementArtifactSchema = z.object({
  compiler: z.string(),
  settings: settingsSchema,
  contracts: z.object({
    x402BatchSettlement: z.object({ deployedBytecode: bytecodeSchema }),
    ERC3009DepositCollector: z.object({ deployedBytecode: bytecodeSchema }),
    Permit2DepositCollector: z.object({ deployedBytecode: bytecodeSchema }),
  }),
});
export type BatchSettlementArtifact = z.infer<typeof batchSettlementArtifactSchema>;

const abiItemSchema = z.object({ type: z.string(), name: z.string().optional() }).passthrough();
const outputSchema = z.object({
  errors: z.array(z.object({ severity: z.string(), formattedMessage: z.string() })).optional(),
  contracts: z
    .record(
      z.string(),
      // Absent for every contract when the source does not compile: the errors say why.
      z.record(z.string(), z.object({ abi: z.array(abiItemSchema).optional(), evm: z.object({ deployedBytecode: z.object({ object: z.string() }) }).optional() })),
    )
    .optional(),
});

// Cancun: the sandbox's anvil runs a later hardfork; the code uses nothing newer than transient
// storage (EIP-1153, the channel contract's reentrancy lock) and PUSH0.
const settings = { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun" };

type Compiled = { deployedBytecode: `0x${string}`; abi: z.infer<typeof abiItemSchema>[] };

/** Compiles one source file and returns the runtime code (and ABI) of each contract asked for. */
function compileSource(path: string, contracts: readonly string[]): Record<string, Compiled> {
  const file = path.slice(here.length + 1);
  const input = {
    language: "Solidity",
    sources: { [file]: { content: readFileSync(path, "utf8") } },
    settings: {
      ...settings,
      outputSelection: { "*": Object.fromEntries(contracts.map((name) => [name, ["abi", "evm.deployedBytecode.object"]])) },
    },
  };
  const output = outputSchema.parse(JSON.parse(solc.compile(JSON.stringify(input))));
  const errors = (output.errors ?? []).filter((error) => error.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join("\n"));
  return Object.fromEntries(
    contracts.map((name) => {
      const compiled = output.contracts?.[file]?.[name];
      if (!compiled?.evm?.deployedBytecode.object) throw new Error(`solc produced no runtime code for ${name}`);
      return [name, { deployedBytecode: `0x${compiled.evm.deployedBytecode.object.toLowerCase()}` as const, abi: compiled.abi ?? [] }];
    }),
  );
}

export function compileUptoProxy(): UptoProxyArtifact {
  const compiled = compileSource(UPTO_PROXY_SOURCE, [UPTO_CONTRACT])[UPTO_CONTRACT];
  if (!compiled) throw new Error(`solc produced no runtime code for ${UPTO_CONTRACT}`);
  return { contract: UPTO_CONTRACT, compiler: String(solc.version()), settings, deployedBytecode: compiled.deployedBytecode };
}

export function readUptoProxyArtifact(): UptoProxyArtifact {
  return uptoProxyArtifactSchema.parse(JSON.parse(readFileSync(UPTO_PROXY_ARTIFACT, "utf8")));
}

/** The channel contracts compiled now, with their ABIs (which tests hold to @x402/evm's). */
export function compileBatchSettlement(): { artifact: BatchSettlementArtifact; abis: Record<BatchSettlementContract, Compiled["abi"]> } {
  const compiled = compileSource(BATCH_SETTLEMENT_SOURCE, BATCH_SETTLEMENT_CONTRACTS);
  const pick = (name: BatchSettlementContract) => {
    const contract = compiled[name];
    if (!contract) throw new Error(`solc produced no runtime code for ${name}`);
    return contract;
  };
  return {
    artifact: {
      compiler: String(solc.version()),
      settings,
      contracts: {
        x402BatchSettlement: { deployedBytecode: pick("x402BatchSettlement").deployedBytecode },
        ERC3009DepositCollector: { deployedBytecode: pick("ERC3009DepositCollector").deployedBytecode },
        Permit2DepositCollector: { deployedBytecode: pick("Permit2DepositCollector").deployedBytecode },
      },
    },
    abis: {
      x402BatchSettlement: pick("x402BatchSettlement").abi,
      ERC3009DepositCollector: pick("ERC3009DepositCollector").abi,
      Permit2DepositCollector: pick("Permit2DepositCollector").abi,
    },
  };
}

export function readBatchSettlementArtifact(): BatchSettlementArtifact {
  return batchSettlementArtifactSchema.parse(JSON.parse(readFileSync(BATCH_SETTLEMENT_ARTIFACT, "utf8")));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(UPTO_PROXY_ARTIFACT, `${JSON.stringify(compileUptoProxy(), null, 2)}\n`);
  console.log(`wrote ${UPTO_PROXY_ARTIFACT}`);
  writeFileSync(BATCH_SETTLEMENT_ARTIFACT, `${JSON.stringify(compileBatchSettlement().artifact, null, 2)}\n`);
  console.log(`wrote ${BATCH_SETTLEMENT_ARTIFACT}`);
}
