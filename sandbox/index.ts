/**
 * The whole local x402 world in one call: anvil with Circle's USDC (and Permit2, the upto proxy and
 * the batch-settlement channel contracts at their canonical addresses), a local Solana with USDC
 * (sandbox/solana.ts), a facilitator for both, x402 v2 services (some of which take payment on
 * either chain, two per call from a channel's deposit), Machine Payments Protocol services made
 * with mppx's server (services/mpp-service.ts, listed by their OpenAPI documents), a Bazaar-style registry, a funded demo wallet on each chain, a funded smart
 * account owned by the demo wallet's key, and a funder. Everything listens on
 * 127.0.0.1; `stop()` leaves no process or socket behind. The product never imports this.
 */
import { sandboxAccounts } from "./accounts";
import { SANDBOX_CHAIN_ID, SANDBOX_NETWORK, startChain } from "./chain";
import { startFacilitator } from "./facilitator";
import { approvePermit2, installPermit2AndUptoProxy } from "./permit2";
import { BATCH_SETTLEMENT_ADDRESS, CHANNEL_WITHDRAW_DELAY_SECONDS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, PERMIT2_DEPOSIT_COLLECTOR_ADDRESS, installBatchSettlement } from "./batch-settlement";
import { createFunder, DEMO_WALLET_USDC, type Funder } from "./funder";
import { DEFAULT_DATA_DIR, describeInfo, writeInfoFile, type SandboxInfo, type SandboxServiceInfo } from "./info";
import {
  assertPortFree,
  freePort,
  freePortBlock,
  moveTakenPorts,
  portsFromEnv,
  portVariable,
  type SandboxPorts,
} from "./ports";
import { startRegistry, type Registry } from "./registry";
import { SOLANA_SANDBOX_NETWORK, SOLANA_USDC_DECIMALS, startLocalSolana, type LocalSolana } from "./solana";
import { sandboxServices } from "./services/catalog";
import { startDeployedService } from "./services/deployed";
import { OPENAPI_PATH, startMppService } from "./services/mpp-service";
import { schemesOf, type ServiceDefinition } from "./services/definition";
import type { ChannelActivity } from "./services/channel";
import { startService, type AfterSettlement, type ClaimedSettlement, type Meanwhile, type ReceiptForgery, type RunningService } from "./services/x402-service";
import { formatUnits } from "./units";
import { USDC_DECIMALS, USDC_NAME, USDC_VERSION, deployUsdc } from "./usdc";
import { assertFactoryDeployed, CREATE2_FACTORY, deploySmartAccount, SMART_ACCOUNT_CONTRACT, smartAccount, type SmartAccount } from "./smart-account";

export type { SandboxInfo, SandboxServiceInfo } from "./info";
export { chainEnvOf, mppServicesOf } from "./info";
export type { ServiceDefinition } from "./services/definition";
export type { ChannelActivity } from "./services/channel";
export { batchSettlementAbi, CHANNEL_WITHDRAW_DELAY_SECONDS } from "./batch-settlement";
export { FAIL_QUERY_FLAG, FORGED_RECEIPT_PAYER, type AfterSettlement, type ClaimedSettlement, type Meanwhile, type ReceiptForgery } from "./services/x402-service";
export { usdcAbi } from "./usdc";
export { HOSTILE_PAYEE } from "./services/hostile";
export {
  CREATE2_FACTORY,
  smartAccount,
  smartAccountSigner,
  type SmartAccount,
  type TypedDataSigner,
} from "./smart-account";

export type SandboxOptions = {
  /** Overrides per port; unset ones come from the environment (SANDBOX_*_PORT, PORT) or defaults. */
  ports?: Partial<SandboxPorts>;
  /** Free loopback ports picked by the OS, so parallel test files never clash. */
  randomPorts?: boolean;
  /**
   * A usual port (its variable unset) that something else holds is swapped for a free one, and
   * `onMoved` is told which (the demo prints it); a port set by its variable must be free.
   */
  moveTakenPorts?: { onMoved: (note: string) => void };
  /** The local chain keeps time while idle, a block every CHAIN_CLOCK_MS (the demo's); the tests' mines only on a transaction. */
  chainClock?: boolean;
  /** Where sandbox.json goes. Default `.data` (relative to the working directory). */
  dataDir?: string;
  /** Write `<dataDir>/sandbox.json`. Default: true, except with `randomPorts`. */
  writeInfoFile?: boolean;
  /** No printing (the info and service logs). Default false. */
  quiet?: boolean;
  /** List test-only services (the prompt-injection one) in the registry too. Default false. */
  includeTestOnly?: boolean;
  /** Seed of the crypto price walk; default: the start time. */
  priceSeed?: number;
  /** USDC the demo wallet starts with, atomic units. Default 25 USDC. */
  demoWalletUsdc?: bigint;
  /** USDC the demo smart account starts with, atomic units. Default 25 USDC. */
  smartAccountUsdc?: bigint;
  env?: NodeJS.ProcessEnv;
};

export type Sandbox = {
  info: SandboxInfo;
  /** Stops every server and anvil; safe to call twice. */
  stop(): Promise<void>;
  /** Offline: the service answers 503 `service-unavailable` on every request until switched back. */
  setServiceOnline(name: string, online: boolean): void;
  /** Failing: paid requests pass verification, then the handler fails (500) and nothing settles. */
  setServiceFailing(name: string, failing: boolean): void;
  /**
   * Paid requests settle on chain, then the service answers 500, never answers, or breaks off;
   * `meanwhile` runs between the two (a test's other transactions, a blockhash expiring).
   */
  setServiceAfterSettlement(name: string, mode: AfterSettlement | undefined, meanwhile?: Meanwhile): void;
  /** Paid requests are not settled, and the service claims they were, with this transaction. */
  setServiceClaimedSettlement(name: string, claim: ClaimedSettlement | undefined): void;
  /** A service that signs receipts settles each paid request and hands out a forged receipt of this kind, until unset. */
  setServiceReceiptForgery(name: string, forgery: ReceiptForgery | undefined): void;
  /** The `payment-identifier` of each payment the service settled, in order. */
  paymentIdentifiers(name: string): readonly string[];
  /** A channel service's claims and sweeps so far, once those under way are done. */
  channelActivity(name: string): Promise<ChannelActivity>;
  /** Closes a service's port: connections to it are refused from then on. */
  stopService(name: string): Promise<void>;
  /** Mints sandbox USDC (atomic units) and/or sends ETH (wei) from the funder. */
  fund(parameters: { to: `0x${string}`; usdc?: bigint; eth?: bigint }): Promise<void>;
  /** The local Solana: fund an address with USDC or SOL, transfer USDC, sign as a sandbox key, expire or hold blockhashes. */
  solana: Pick<LocalSolana, "fund" | "usdcBalance" | "signAs" | "holdKey" | "expireBlockhashes" | "holdBlockhash" | "transferUsdc" | "prepareTokenAccount">;
  /** Deploys a smart account (sandbox/smart-account.ts) through its factory, from the funder. */
  deploySmartAccount(account: SmartAccount): Promise<void>;
  /** Starts another service (x402, or MPP by its `protocol`) on a free port; lists an x402 one in the registry unless `listed: false`. */
  addService(definition: ServiceDefinition, options?: { listed?: boolean }): Promise<SandboxServiceInfo>;
  registry: Pick<Registry, "register" | "registerFromUrl" | "unregister" | "list">;
};

/** How often an idle demo chain mines a block: about a live L2's pace, slow enough to keep anvil quiet. */
export const CHAIN_CLOCK_MS = 3_000;

type Stopper = () => Promise<void>;

async function resolvePorts(options: SandboxOptions, serviceCount: number): Promise<SandboxPorts> {
  if (options.randomPorts) {
    return {
      rpc: options.ports?.rpc ?? (await freePort()),
      solana: options.ports?.solana ?? (await freePort()),
      facilitator: options.ports?.facilitator ?? (await freePort()),
      registry: options.ports?.registry ?? (await freePort()),
      services: options.ports?.services ?? (await freePortBlock(serviceCount)),
      app: options.ports?.app ?? (await freePort()),
    };
  }
  const ports = { ...portsFromEnv(options.env), ...options.ports };
  if (options.moveTakenPorts) {
    const env = options.env ?? process.env;
    const movable = (key: keyof SandboxPorts) => options.ports?.[key] === undefined && !env[portVariable(key)];
    Object.assign(ports, await moveTakenPorts(ports, { serviceCount, movable, onMoved: options.moveTakenPorts.onMoved }));
  }
  await assertPortFree(ports.rpc, portVariable("rpc"));
  await assertPortFree(ports.solana, portVariable("solana"));
  await assertPortFree(ports.facilitator, portVariable("facilitator"));
  await assertPortFree(ports.registry, portVariable("registry"));
  for (let index = 0; index < serviceCount; index++) {
    await assertPortFree(ports.services + index, `${portVariable("services")} (+${index})`);
  }
  return ports;
}

function serviceInfo(service: RunningService, listed: boolean): SandboxServiceInfo {
  const { definition } = service;
  const protocol = definition.protocol ?? "x402";
  return {
    protocol,
    ...(protocol === "mpp" ? { openapiUrl: `${service.url}${OPENAPI_PATH}` } : {}),
    networks: [...((definition.rails ?? ["evm"]).includes("evm") ? [SANDBOX_NETWORK] : []), ...(service.solanaPayTo ? [SOLANA_SANDBOX_NETWORK] : [])],
    ...(service.solanaPayTo ? { solanaPayTo: service.solanaPayTo } : {}),
    name: definition.name,
    url: service.resourceUrl,
    schemes: schemesOf(definition),
    price: formatUnits(definition.price, USDC_DECIMALS),
    ...(definition.upto ? { typicalPrice: formatUnits(definition.upto.typical, USDC_DECIMALS) } : {}),
    ...(definition.channel
      ? {
          channel: {
            deposit: formatUnits(definition.channel.deposit, USDC_DECIMALS),
            withdrawDelaySeconds: CHANNEL_WITHDRAW_DELAY_SECONDS,
            claimEvery: definition.channel.claimEvery === "never" ? null : definition.channel.claimEvery,
            refunds: definition.channel.refunds,
            contract: BATCH_SETTLEMENT_ADDRESS,
            depositCollectors: { eip3009: ERC3009_DEPOSIT_COLLECTOR_ADDRESS, permit2: PERMIT2_DEPOSIT_COLLECTOR_ADDRESS },
          },
        }
      : {}),
    priceAtomic: definition.price.toString(),
    serviceName: definition.serviceName,
    description: definition.description,
    method: definition.method,
    latencyMs: definition.latencyMs,
    tags: definition.tags,
    payTo: service.payTo,
    listed,
    ...(definition.madeWith ? { madeWith: definition.madeWith } : {}),
  };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const quiet = options.quiet ?? false;
  const log = quiet ? () => undefined : (line: string) => console.log(`[sandbox] ${line}`);
  const definitions = sandboxServices({ priceSeed: options.priceSeed });
  const ports = await resolvePorts(options, definitions.length);
  const accounts = sandboxAccounts();
  const stoppers: Stopper[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // Reverse start order: services before the facilitator they call, the chain last.
    for (const stopOne of stoppers.reverse()) await stopOne().catch(() => undefined);
  };

  try {
    const chain = await startChain({ port: ports.rpc, quiet: true, ...(options.chainClock ? { clock: { everyMs: CHAIN_CLOCK_MS } } : {}) });
    stoppers.push(chain.stop);
    const usdcAddress = await deployUsdc({ rpcUrl: chain.rpcUrl, owner: accounts.funder, proxyAdmin: accounts.proxyAdmin });
    await installPermit2AndUptoProxy(chain.rpcUrl);
    await installBatchSettlement(chain.rpcUrl);
    const fund: Funder = createFunder({ rpcUrl: chain.rpcUrl, funder: accounts.funder, usdcAddress });
    await fund({ to: accounts.demoWallet.address, usdc: options.demoWalletUsdc ?? DEMO_WALLET_USDC });
    // The demo wallet has approved Permit2 once, so it pays usage-priced (`upto`) services.
    await approvePermit2({ rpcUrl: chain.rpcUrl, owner: accounts.demoWallet, usdc: usdcAddress });
    // The demo's smart account: owned by the demo wallet's key, funded like it.
    await assertFactoryDeployed(chain.rpcUrl, CREATE2_FACTORY);
    const deploy = (account: SmartAccount) => deploySmartAccount({ rpcUrl: chain.rpcUrl, account, transact: fund.transact });
    const demoSmartAccount = smartAccount({ owner: accounts.demoWallet.address });
    await deploy(demoSmartAccount);
    await fund({ to: demoSmartAccount.address, usdc: options.smartAccountUsdc ?? DEMO_WALLET_USDC });

    // The local Solana: the fee payer holds SOL for fees, the demo wallet USDC (and no SOL: an
    // x402 payer pays no fee), and the sandbox signs for the demo wallet as anvil does.
    const solana = await startLocalSolana({ port: ports.solana, log });
    stoppers.push(solana.close);
    await solana.fund({ to: accounts.solana.facilitator.address, lamports: 10_000_000_000n });
    await solana.fund({ to: accounts.solana.demoWallet.address, usdc: options.demoWalletUsdc ?? DEMO_WALLET_USDC });
    solana.holdKey(accounts.solana.demoWallet);

    let registryRef: Registry | undefined;
    const facilitator = await startFacilitator({
      port: ports.facilitator,
      rpcUrl: chain.rpcUrl,
      account: accounts.facilitator,
      eip6492AllowedFactories: [CREATE2_FACTORY],
      solana: { rpcUrl: solana.rpcUrl, network: solana.network, feePayer: accounts.solana.facilitator },
      // The registry's quality signals are the payments the facilitator really settled.
      onSettled: (call) => registryRef?.recordCall(call),
    });
    stoppers.push(facilitator.close);
    const registry = await startRegistry({ port: ports.registry });
    registryRef = registry;
    stoppers.push(registry.close);

    const services = new Map<string, RunningService>();
    const launch = async (definition: ServiceDefinition, port: number, index: number) => {
      const solanaPayee = definition.rails?.includes("solana") ? accounts.solana.merchant(index).address : undefined;
      // A payee's token account exists before anyone pays it: the exact scheme does not create one.
      if (solanaPayee) await solana.prepareTokenAccount(solanaPayee);
      const start = definition.protocol === "mpp" ? startMppService : definition.madeWith ? startDeployedService : startService;
      const service = await start({
        definition,
        port,
        facilitatorUrl: facilitator.url,
        usdcAddress,
        payTo: accounts.merchant(index).address,
        payToKey: accounts.merchant(index).privateKey,
        ...(solanaPayee ? { solana: { network: solana.network, mint: solana.mint, payTo: solanaPayee } } : {}),
        log,
      });
      stoppers.push(service.close);
      services.set(definition.name, service);
      return service;
    };
    const started = await Promise.all(definitions.map((definition, index) => launch(definition, ports.services + index, index)));

    const infos: SandboxServiceInfo[] = [];
    for (const service of started) {
      const listed = !service.definition.testOnly || (options.includeTestOnly ?? false);
      // An MPP service is listed by its own OpenAPI document (`openapiUrl`), not in the x402 registry.
      if (listed && service.definition.protocol !== "mpp") await registry.registerFromUrl(service.resourceUrl, service.definition.method);
      infos.push(serviceInfo(service, listed));
    }

    const info: SandboxInfo = {
      rpcUrl: chain.rpcUrl,
      chainId: SANDBOX_CHAIN_ID,
      network: SANDBOX_NETWORK,
      usdc: { address: usdcAddress, name: USDC_NAME, version: USDC_VERSION, decimals: USDC_DECIMALS },
      facilitatorUrl: facilitator.url,
      registryUrl: registry.url,
      // The app's public origin (APP_URL), which `npm run demo` hands the app as it is.
      appUrl: (!options.randomPorts && process.env.APP_URL?.trim().replace(/\/$/, "")) || `http://localhost:${ports.app}`,
      services: infos,
      demoWallet: accounts.demoWallet,
      smartAccount: {
        address: demoSmartAccount.address,
        owner: demoSmartAccount.owner,
        contract: SMART_ACCOUNT_CONTRACT,
        factory: demoSmartAccount.factory,
      },
      eip6492Factories: [CREATE2_FACTORY],
      funder: accounts.funder,
      solana: {
        rpcUrl: solana.rpcUrl,
        network: solana.network,
        usdc: { mint: solana.mint, decimals: SOLANA_USDC_DECIMALS },
        feePayer: accounts.solana.facilitator.address,
        demoWallet: { address: accounts.solana.demoWallet.address, secretKey: accounts.solana.demoWallet.secretKey },
        funder: { address: solana.funder.address, secretKey: solana.funder.secretKey },
      },
    };

    const serviceNamed = (name: string): RunningService => {
      const service = services.get(name);
      if (!service) throw new Error(`no sandbox service named "${name}"; known: ${[...services.keys()].join(", ")}`);
      return service;
    };

    if (options.writeInfoFile ?? !options.randomPorts) {
      const path = await writeInfoFile(info, options.dataDir ?? DEFAULT_DATA_DIR);
      log(`wrote ${path}`);
    }
    // The description, never the file's JSON: that holds the sandbox's keys.
    if (!quiet) console.log(describeInfo(info));

    return {
      info,
      stop,
      setServiceOnline: (name, online) => {
        serviceNamed(name).setOnline(online);
        log(`${name} is now ${online ? "online" : "offline"}`);
      },
      setServiceFailing: (name, failing) => serviceNamed(name).setFailing(failing),
      setServiceAfterSettlement: (name, mode, meanwhile) => serviceNamed(name).setAfterSettlement(mode, meanwhile),
      setServiceClaimedSettlement: (name, claim) => serviceNamed(name).setClaimedSettlement(claim),
      setServiceReceiptForgery: (name, forgery) => serviceNamed(name).setReceiptForgery(forgery),
      paymentIdentifiers: (name) => serviceNamed(name).paymentIdentifiers(),
      channelActivity: (name) => serviceNamed(name).channelActivity(),
      stopService: (name) => serviceNamed(name).close(),
      fund,
      solana: {
        fund: solana.fund,
        usdcBalance: solana.usdcBalance,
        signAs: solana.signAs,
        holdKey: solana.holdKey,
        expireBlockhashes: solana.expireBlockhashes,
        holdBlockhash: solana.holdBlockhash,
        transferUsdc: solana.transferUsdc,
        prepareTokenAccount: solana.prepareTokenAccount,
      },
      deploySmartAccount: deploy,
      addService: async (definition, { listed = true } = {}) => {
        if (services.has(definition.name)) throw new Error(`a service named "${definition.name}" already runs`);
        const service = await launch(definition, 0, services.size);
        if (listed && definition.protocol !== "mpp") await registry.registerFromUrl(service.resourceUrl, definition.method);
        const added = serviceInfo(service, listed);
        info.services.push(added);
        return added;
      },
      registry: {
        register: registry.register,
        registerFromUrl: registry.registerFromUrl,
        unregister: registry.unregister,
        list: registry.list,
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
