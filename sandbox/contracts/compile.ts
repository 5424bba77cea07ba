/**
 * Compiles the sandbox's upto proxy (X402UptoPermit2Proxy.sol) with `solc` from npm, and, run as
 * a script (`npx tsx sandbox/contracts/compile.ts`), writes the artifact the sandbox places on its
 * chain (x402-upto-permit2-proxy.json). The artifact is committed so a start needs no compiler;
 * tests/integration/upto-chain.test.ts recompiles and holds the artifact to the source.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";
import { z } from "zod";

const here = dirname(fileURLToPath(import.meta.url));
export const UPTO_PROXY_SOURCE = join(here, "X402UptoPermit2Proxy.sol");
export const UPTO_PROXY_ARTIFACT = join(here, "x402-upto-permit2-proxy.json");
const CONTRACT = "x402UptoPermit2Proxy";

export const uptoProxyArtifactSchema = z.object({
  contract: z.literal(CONTRACT),
  compiler: z.string(),
  settings: z.object({ optimizer: z.object({ enabled: z.boolean(), runs: z.number().int() }), evmVersion: z.string() }),
  deployedBytecode: z.string().regex(/^0x[0-9a-f]+$/),
});
export type UptoProxyArtifact = z.infer<typeof uptoProxyArtifactSchema>;

const outputSchema = z.object({
  errors: z.array(z.object({ severity: z.string(), formattedMessage: z.string() })).optional(),
  contracts: z
    .record(z.string(), z.record(z.string(), z.object({ evm: z.object({ deployedBytecode: z.object({ object: z.string() }) }) })))
    .optional(),
});

// Cancun: the sandbox's anvil runs a later hardfork; the code uses nothing newer than PUSH0.
const settings = { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun" };

export function compileUptoProxy(): UptoProxyArtifact {
  const input = {
    language: "Solidity",
    sources: { "X402UptoPermit2Proxy.sol": { content: readFileSync(UPTO_PROXY_SOURCE, "utf8") } },
    settings: { ...settings, outputSelection: { "*": { [CONTRACT]: ["evm.deployedBytecode.object"] } } },
  };
  const output = outputSchema.parse(JSON.parse(solc.compile(JSON.stringify(input))));
  const errors = (output.errors ?? []).filter((error) => error.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join("\n"));
  const object = output.contracts?.["X402UptoPermit2Proxy.sol"]?.[CONTRACT]?.evm.deployedBytecode.object;
  if (!object) throw new Error(`solc produced no runtime code for ${CONTRACT}`);
  return { contract: CONTRACT, compiler: String(solc.version()), settings, deployedBytecode: `0x${object.toLowerCase()}` };
}

export function readUptoProxyArtifact(): UptoProxyArtifact {
  return uptoProxyArtifactSchema.parse(JSON.parse(readFileSync(UPTO_PROXY_ARTIFACT, "utf8")));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(UPTO_PROXY_ARTIFACT, `${JSON.stringify(compileUptoProxy(), null, 2)}\n`);
  console.log(`wrote ${UPTO_PROXY_ARTIFACT}`);
}
