// GET /api/sweep (docs/contract.md, section 14): a host's scheduler runs the sweep of unfinished
// payments when nobody visits, only with the deployment's CRON_SECRET, and never more than once a
// minute across instances. On a serverless host, the sweep a request starts is handed to the
// host's keep-alive (Next's after()), so a function frozen after its answer does not cut it short.
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import { parseServerEnv } from "@/lib/env";
import { findPayment, reservePayment } from "@/lib/payments/ledger";
import { openPayments } from "@/lib/payments";
import { handleSweepRequest } from "@/lib/cron/sweep-request";
import { openTestDatabase } from "@/tests/helpers/database";

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db.close();
});

const secret = "a-scheduler-secret-of-32-characters";
const sweep = (env: Record<string, string>, authorization?: string, now?: Date) =>
  handleSweepRequest(new Request("http://localhost/api/sweep", { headers: authorization ? { authorization } : {} }), {
    env: () => parseServerEnv({ MODEL_PROVIDER: "offline", ...env }),
    database: async () => db,
    ...(now ? { now: () => now } : {}),
  });

test("without CRON_SECRET the route is not there; with it, only its bearer runs the sweep", async () => {
  const missing = await sweep({});
  expect(missing.status).toBe(404);
  expect(await missing.json()).toMatchObject({ error: { code: "not-found" } });
  for (const wrong of [undefined, "Bearer not-the-secret", `Basic ${secret}`, `Bearer ${secret}x`]) {
    const refused = await sweep({ CRON_SECRET: secret }, wrong);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("cache-control")).toBe("no-store");
  }
});

test("the scheduler's sweep looks at a reservation a dead request left behind, and the next within the minute does nothing", async () => {
  const then = new Date(Date.now() - 60 * 60 * 1000);
  await reservePayment(db, {
    payment: {
      paymentId: "left_behind",
      wallet: "0x00000000000000000000000000000000000000f1",
      // A network without an RPC here: the sweep looks at it and leaves it counted, as the contract says.
      network: "eip155:84532",
      asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      payTo: "0x00000000000000000000000000000000000000f2",
      amount: 1_000n,
      nonce: `0x${"f1".repeat(32)}`,
      serviceName: "Weather",
      serviceUrl: "http://127.0.0.1:1/weather",
    },
    limits: { daily: 10n ** 9n, weekly: 10n ** 9n, monthly: 10n ** 9n, perPayment: 10n ** 9n },
    now: then,
  });
  const now = new Date();
  const first = await sweep({ CRON_SECRET: secret }, `Bearer ${secret}`, now);
  expect(first.status).toBe(200);
  expect(await first.json()).toMatchObject({ swept: true, report: { skipped: 1 } });
  expect((await findPayment(db, "left_behind"))?.status).toBe("reserved");
  const again = await sweep({ CRON_SECRET: secret }, `Bearer ${secret}`, new Date(now.getTime() + 5_000));
  expect(await again.json()).toEqual({ swept: false });
});

test("a door's request hands the sweep it starts to the host's keep-alive", async () => {
  const kept: Promise<unknown>[] = [];
  const fresh = await openTestDatabase();
  try {
    openPayments({ db: fresh, env: parseServerEnv({ MODEL_PROVIDER: "offline" }), keepAlive: (work) => kept.push(work) });
    expect(kept).toHaveLength(1);
    // The first use of a database sweeps: what the host waits for is that sweep's report.
    expect(await kept[0]).toMatchObject({ checked: 0, settled: 0 });
  } finally {
    await fresh.close();
  }
});
