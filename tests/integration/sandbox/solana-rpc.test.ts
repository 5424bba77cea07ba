// The sandbox's local Solana answers `getSignaturesForAddress` as a validator does, asked through
// @solana/kit's own RPC client: newest first, `limit` (default and maximum 1000), `before` and
// `until` to page, over more history than one page holds.
import { randomBytes } from "node:crypto";
import { createSolanaRpc, getBase58Decoder, type Address, type Signature } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort } from "@/sandbox/ports";
import { newSolanaKey, startLocalSolana, type LocalSolana } from "@/sandbox/solana";

let solana: LocalSolana;
let rpc: ReturnType<typeof createSolanaRpc>;
/** A busy account: its token account received these transfers, oldest first. */
let account: Address;
let landed: string[];
const TRANSFERS = 1_050;

beforeAll(async () => {
  solana = await startLocalSolana({ port: await freePort() });
  rpc = createSolanaRpc(solana.rpcUrl);
  const owner = newSolanaKey();
  account = await solana.prepareTokenAccount(owner.address);
  landed = [];
  for (let index = 0; index < TRANSFERS; index++) landed.push(await solana.transferUsdc({ to: owner.address, usdc: 1n }));
  expect(solana.usdcBalance(owner.address)).toBe(BigInt(TRANSFERS));
}, 120_000);
afterAll(async () => {
  await solana?.close();
});

const page = async (options: { limit?: number; before?: string; until?: string } = {}) => {
  const { before, until, ...rest } = options;
  const found = await rpc
    .getSignaturesForAddress(account, { ...rest, ...(before ? { before: before as Signature } : {}), ...(until ? { until: until as Signature } : {}) })
    .send();
  return found.map((entry) => String(entry.signature));
};
/** The transfers from the `from`-th newest (0) on, newest first. */
const newest = (count: number, from = 0) => [...landed].reverse().slice(from, from + count);

describe("getSignaturesForAddress on the sandbox's Solana", () => {
  test("a first page is the newest 1000, newest first; `before` its last gives the older rest, down to the first transfer", async () => {
    const first = await page();
    expect(first).toHaveLength(1_000);
    expect(first).toEqual(newest(1_000));
    const rest = await page({ before: first.at(-1) });
    expect(rest).toEqual(newest(TRANSFERS - 1_000, 1_000));
    expect(rest.at(-1)).toBe(landed[0]);
    // Past the oldest, nothing more.
    expect(await page({ before: landed[0] })).toEqual([]);
  });

  test("`limit` pages in smaller steps, and each entry carries its slot, never rising down the list", async () => {
    const ten = await page({ limit: 10 });
    expect(ten).toEqual(newest(10));
    expect(await page({ limit: 10, before: ten.at(-1) })).toEqual(newest(10, 10));
    const entries = await rpc.getSignaturesForAddress(account, { limit: 50 }).send();
    const slots = entries.map((entry) => entry.slot);
    expect(slots).toEqual([...slots].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(entries.every((entry) => entry.err === null)).toBe(true);
  });

  test("`until` stops before that transaction; with `before`, the page is what lies between", async () => {
    const until = newest(1, 5)[0];
    expect(await page({ until })).toEqual(newest(5));
    expect(await page({ before: newest(1, 1)[0], until })).toEqual(newest(3, 2));
    // An `until` older than the page's size still stops at `limit`.
    expect(await page({ limit: 4, until: landed[0] })).toEqual(newest(4));
  });

  test("a limit above 1000 or below 1 is refused as a validator refuses it; a `before` that never landed gives nothing", async () => {
    await expect(page({ limit: 1_001 })).rejects.toThrow(/Invalid limit; max 1000/);
    await expect(page({ limit: 0 })).rejects.toThrow(/Invalid limit/);
    // A well-formed signature of no transaction: 64 random bytes in base58.
    expect(await page({ before: getBase58Decoder().decode(randomBytes(64)) })).toEqual([]);
  });
});
