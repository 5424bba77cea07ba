// A sandbox stopped and another started in the same process (the bench does this, one per
// database): the new chain is fresh, the facilitator's account the same. Its settlements must
// be mined there, not sent with nonces the first chain had reached.
import { describe, expect, it } from "vitest";
import { startSandbox } from "@/sandbox";
import { createPayer, sampleRequest, service, settlementOf } from "./reference-client";

async function payOnce(): Promise<void> {
  const sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  try {
    const payer = await createPayer(sandbox, 1_000_000n);
    const { url, init } = sampleRequest(service(sandbox, "weather-express"));
    for (let call = 0; call < 3; call += 1) {
      const response = await payer.pay(url, init);
      expect(response.status).toBe(200);
      expect(settlementOf(response)).toMatchObject({ success: true });
    }
  } finally {
    await sandbox.stop();
  }
}

describe("a second sandbox in one process", () => {
  it("settles on its own fresh chain as the first did", { timeout: 120_000 }, async () => {
    await payOnce();
    await payOnce();
  });
});
