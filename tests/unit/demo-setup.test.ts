// `npm run demo` tells the person what they need once the app is up (the address, the demo wallet,
// where the sandbox's details and the ledger are) and never prints that file, which holds the
// sandbox's keys; the app it starts reports nothing to Next.js's telemetry, and begins its ledger
// empty with each new sandbox unless the person named one.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { openDatabase, pgliteFolder } from "@/lib/db";
import { beginDemoLedger, DEMO_DATA_DIR, demoAppEnv, demoLedger, demoReadyLines } from "@/sandbox/demo-setup";
import type { SandboxInfo, SandboxServiceInfo } from "@/sandbox/info";

const key = (digit: string) => `0x${digit.repeat(64)}` as const;
const service = (fields: Pick<SandboxServiceInfo, "name" | "url"> & Partial<SandboxServiceInfo>): SandboxServiceInfo => ({
  protocol: "x402",
  networks: ["eip155:31337"],
  schemes: ["exact"],
  price: "0.01",
  priceAtomic: "10000",
  serviceName: fields.name,
  description: "A sandbox service.",
  method: "GET",
  latencyMs: 100,
  tags: [],
  payTo: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  listed: true,
  ...fields,
});
const info: SandboxInfo = {
  rpcUrl: "http://127.0.0.1:8545",
  chainId: 31337,
  network: "eip155:31337",
  usdc: { address: "0x5FbDB2315678afecb367f032d93F642f64180aa3", name: "USD Coin", version: "2", decimals: 6 },
  facilitatorUrl: "http://127.0.0.1:4020",
  registryUrl: "http://127.0.0.1:4030",
  appUrl: "http://localhost:3000",
  services: [
    service({ name: "weather-express", url: "http://127.0.0.1:4100/weather" }),
    service({ name: "quotations-mpp", url: "http://127.0.0.1:4112/maxim", protocol: "mpp", openapiUrl: "http://127.0.0.1:4112/openapi.json" }),
  ],
  demoWallet: { address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", privateKey: key("7") },
  smartAccount: { address: "0x5caBF3Ac715aedb7075c8ad7E8B40DC2FEd083DE", owner: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", contract: "MockERC1271Wallet", factory: "0x4e59b44847b379578588920ca78fbf26c0b4956c" },
  eip6492Factories: ["0x4e59b44847b379578588920ca78fbf26c0b4956c"],
  funder: { address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", privateKey: key("8") },
  solana: {
    rpcUrl: "http://127.0.0.1:8899",
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    usdc: { mint: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", decimals: 6 },
    feePayer: "9jsJcfzVQmx668dtmJMTGk37wvaWVaD87GnNbpY3RQpR",
    demoWallet: { address: "Ag4iaegqfkiUNdsKcLGFf13eQ91RokAUjfhG7TTH1BqJ", secretKey: "DemoSolanaSecretKeyInBase58" },
    funder: { address: "BvFWqhJpDrDidRtseaT2wgpkVNcNoMKw1Dy36rAafFNm", secretKey: "FunderSolanaSecretKeyInBase58" },
  },
};
const infoFile = "/home/someone/x402-payment-agent/.data/sandbox.json";

describe("npm run demo", () => {
  test("once the app is up, the console says where to go, which wallet to connect and where the details are, and no key", () => {
    const printed = demoReadyLines(info, infoFile, demoLedger({})).join("\n");
    expect(printed).toContain("Ready: open http://localhost:3000");
    expect(printed).toContain("0x90F79bf6EB2c4f870365E785982E1f101E93b906");
    expect(printed).toContain("Sandbox demo wallet");
    expect(printed).toContain("Ag4iaegqfkiUNdsKcLGFf13eQ91RokAUjfhG7TTH1BqJ");
    expect(printed).toContain(infoFile);
    for (const secret of [info.demoWallet.privateKey, info.funder.privateKey, info.solana.demoWallet.secretKey, info.solana.funder.secretKey]) {
      expect(printed).not.toContain(secret);
    }
    expect(printed).not.toMatch(/privateKey|secretKey|0x[0-9a-f]{64}/i);
    expect(printed).toContain(`Ledger              ${DEMO_DATA_DIR} (begun empty`);
    expect(printed.split("\n").length).toBeLessThanOrEqual(12);
  });

  test("the app it starts has Next.js's telemetry off, and is wired to the sandbox", () => {
    const env = demoAppEnv({ info, appPort: 3000, infoFile, env: { MPP_SERVICES: "https://mpp.example/openapi.json" } });
    expect(env).toMatchObject({
      NEXT_TELEMETRY_DISABLED: "1",
      NODE_ENV: "production",
      PORT: "3000",
      X402_DISCOVERY_URLS: "http://127.0.0.1:4030",
      SANDBOX_INFO_FILE: infoFile,
      APP_URL: "http://localhost:3000",
      X402_NETWORKS: "eip155:31337,solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    });
    expect(env.MPP_SERVICES?.split(",")).toContain("https://mpp.example/openapi.json");
    expect(env.X402_ALLOW_PRIVATE_ADDRESSES).toBe("127.0.0.1:4030,127.0.0.1:4100,127.0.0.1:4112");
  });

  test("each demo begins its own ledger empty, as its sandbox's chains are new: nothing paid on an earlier sandbox's chain is counted again; a ledger the person names is kept", async () => {
    expect(demoLedger({})).toEqual({ where: DEMO_DATA_DIR, fresh: true });
    expect(demoAppEnv({ info, appPort: 3000, infoFile, env: {} }).DATA_DIR).toBe(DEMO_DATA_DIR);
    expect(demoLedger({ DATA_DIR: "/srv/ledger" })).toEqual({ where: "/srv/ledger", fresh: false });
    expect(demoAppEnv({ info, appPort: 3000, infoFile, env: { DATA_DIR: "/srv/ledger" } }).DATA_DIR).toBe("/srv/ledger");
    expect(demoLedger({ DATABASE_URL: "postgres://localhost/ledger" }).fresh).toBe(false);

    const root = await mkdtemp(join(tmpdir(), "demo-ledger-"));
    try {
      // The app's ledger where lib/db keeps it under DATA_DIR: one settled payment from the last demo's chain.
      const open = (folder: string) => openDatabase({ dataDir: pgliteFolder(folder) });
      const paymentsIn = async (folder: string) => {
        const db = await open(folder);
        try {
          return (await db.query<{ count: number }>("SELECT count(*)::int AS count FROM payments"))[0]?.count;
        } finally {
          await db.close();
        }
      };
      const payOnce = async (folder: string) => {
        const db = await open(folder);
        await db.query(
          `INSERT INTO payments (payment_id, wallet, network, asset, pay_to, amount, nonce, service_name, service_url, status, tx_hash)
           VALUES ('pay-1', $1, 'eip155:31337', $2, $3, 2000, '0x01', 'Budget Weather', 'http://127.0.0.1:4101/weather', 'settled', '0xab')`,
          [info.demoWallet.address.toLowerCase(), info.usdc.address, info.funder.address],
        );
        await db.close();
      };
      const demoFolder = join(root, "demo");
      const namedFolder = join(root, "named");
      await payOnce(demoFolder);
      await payOnce(namedFolder);
      await beginDemoLedger({ where: demoFolder, fresh: true });
      await beginDemoLedger({ where: namedFolder, fresh: false });
      expect(await paymentsIn(demoFolder)).toBe(0);
      expect(await paymentsIn(namedFolder)).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
