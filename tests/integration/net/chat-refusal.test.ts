// Through POST /api/chat: a model (or an instruction planted in what it read) that asks
// payForService for an internal address gets a clear refusal, told to the person as well, and
// nothing is requested, quoted or reserved.
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import { finishOf, modelCallingPayForService, paymentsOf } from "@/tests/helpers/paid-chat";
import { startLoopbackServer, type LoopbackServer } from "./loopback-server";

const wallet = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d").address;
const servers: LoopbackServer[] = [];
const toolResults: string[] = [];


/** A model that calls payForService on the URL the person wrote, then says it is done. */
const fetchingModel = () =>
  modelCallingPayForService(
    (prompt) => {
      const last = prompt.at(-1);
      return { url: last?.role === "user" ? last.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("") : "" };
    },
    { onToolResult: (content) => toolResults.push(JSON.stringify(content)) },
  );

let strict: TestChat;
let sandboxLike: TestChat;

beforeAll(async () => {
  const env = { PAYMENT_TOKEN_SECRET: "test-secret-that-is-at-least-32-characters" };
  strict = await createTestChat({ tools: createChatTools, model: fetchingModel(), env });
  sandboxLike = await createTestChat({
    tools: createChatTools,
    model: fetchingModel(),
    env: { ...env, X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1" },
  });
});

afterAll(async () => {
  await Promise.all([strict?.close(), sandboxLike?.close()]);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server that would ask for payment, as an x402 service does, if it were ever reached. */
async function internalService(host: string): Promise<LoopbackServer> {
  const server = await startLoopbackServer(
    (_request, response) => {
      response.writeHead(402, { "content-type": "application/json" });
      response.end(JSON.stringify({ x402Version: 2, accepts: [] }));
    },
    { host },
  );
  servers.push(server);
  return server;
}

async function ask(chat: TestChat, url: string) {
  const lines = await collectLines(await chat.post({ messages: [{ role: "user", content: url }], walletAddress: wallet }));
  const [ledger] = await chat.db.query<{ count: number }>("SELECT count(*)::int AS count FROM payments");
  return { lines, reserved: ledger?.count, toolResult: toolResults.at(-1) ?? "" };
}

const errorsOf = (lines: Awaited<ReturnType<typeof ask>>["lines"]) => lines.flatMap((line) => (line.type === "error" ? [line.error] : []));

describe("payForService on an internal address", () => {
  test("the cloud metadata address is refused, clearly, and nothing is reserved", async () => {
    const { lines, reserved, toolResult } = await ask(strict, "http://169.254.169.254/latest/meta-data/");
    expect(errorsOf(lines)).toEqual([
      {
        code: "service-unavailable",
        message:
          "The service at 169.254.169.254 is not reachable from here: it points to the cloud metadata address (169.254.169.254), and this agent only calls public addresses.",
      },
    ]);
    expect(finishOf(lines)?.finishReason).toBe("service-unavailable");
    expect(paymentsOf(lines)).toEqual([]);
    expect(reserved).toBe(0);
    expect(toolResult).toContain("only calls public addresses. Nothing was paid.");
  });

  test("a loopback service is refused without the allow-list, and is never requested", async () => {
    const service = await internalService("127.0.0.1");
    const { lines, reserved } = await ask(strict, `${service.origin}/admin`);
    expect(errorsOf(lines)[0]?.message).toContain("loopback address (127.0.0.1)");
    expect(paymentsOf(lines)).toEqual([]);
    expect(reserved).toBe(0);
    expect(service.requests).toEqual([]);
  });

  test("with 127.0.0.1 allowed, as on the sandbox, 127.0.0.2 is still refused", async () => {
    const service = await internalService("127.0.0.2");
    const { lines, reserved } = await ask(sandboxLike, `${service.origin}/admin`);
    expect(errorsOf(lines)[0]?.message).toContain("loopback address (127.0.0.2)");
    expect(reserved).toBe(0);
    expect(service.requests).toEqual([]);
  });

  test("the allowed address is reached", async () => {
    const service = await internalService("127.0.0.1");
    const { lines } = await ask(sandboxLike, `${service.origin}/paid`);
    expect(service.requests).toEqual(["/paid"]);
    // Its 402 was read (and found to offer nothing payable here), not refused.
    expect(errorsOf(lines).some((error) => error.message.includes("not reachable"))).toBe(false);
  });
});
