// The MCP door for AI apps that speak only stdio (docs/contract.md, section 11): the SDK's own
// client runs bin/mcp-stdio.mjs as its server, and the bridge carries its requests to /api/mcp
// over real HTTP with the access grant. The tools are listed, services found and a payment
// quoted through it; a garbage or revoked grant is refused with the server's own words.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { clearDiscoveryCache } from "@/lib/x402/discovery";
import { startSandbox, type Sandbox } from "@/sandbox";
import { callTool, createTestMcp, issueGrant, newGrant, ORIGIN, serveOverHttp, signIn, type TestMcp } from "@/tests/helpers/mcp";
import { newPayer, sandboxEnv, sandboxService } from "@/tests/helpers/paid-chat";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const BRIDGE = "bin/mcp-stdio.mjs";
// Every request through the bridge is answered well within the test's own timeout.
const REQUEST = { timeout: 15_000 };

let sandbox: Sandbox;
let mcp: TestMcp;
let http: Awaited<ReturnType<typeof serveOverHttp>>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  mcp = await createTestMcp({ env: sandboxEnv(sandbox) });
  http = await serveOverHttp(mcp);
  clearDiscoveryCache();
});
afterAll(async () => {
  await http?.close();
  await mcp?.close();
  await sandbox?.stop();
});

const oneADay = { daily: 15_000n, weekly: 100_000n, monthly: 500_000n, perPayment: 50_000n };

/** A grant the wallet signed, its token, and the wallet's session (which may revoke it). */
async function issued() {
  const payer = await newPayer(sandbox);
  const { response, body } = await issueGrant(mcp, payer, newGrant(payer.address, oneADay), sandbox.info.chainId);
  expect(response.status, JSON.stringify(body)).toBe(201);
  if (!body.token || !body.grant) throw new Error("no grant issued");
  return { token: body.token, grant: body.grant, cookie: await signIn(mcp, payer, sandbox.info.chainId) };
}

/** The bridge as an AI app runs it: a child process it talks to over stdin and stdout. */
function bridge(token: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BRIDGE],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", X402_MCP_URL: `${http.url}/api/mcp`, X402_MCP_TOKEN: token },
    stderr: "pipe",
  });
  // The bridge logs each refusal on its stderr; the test reads what the app is answered.
  transport.stderr?.on("data", () => undefined);
  return { client: new Client({ name: "stdio-app", version: "1.0.0" }), transport };
}

/** What connecting through the bridge with this token ends in: connected, or the error the app sees. */
async function connectOutcome(token: string): Promise<{ connected: boolean; code?: unknown; message?: string }> {
  const { client, transport } = bridge(token);
  try {
    await client.connect(transport, REQUEST);
    return { connected: true };
  } catch (error) {
    return { connected: false, code: (error as { code?: unknown }).code, message: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.close();
  }
}

describe("an AI app that speaks only stdio, through bin/mcp-stdio.mjs", () => {
  test("lists the five tools and discovers the sandbox's weather services", async () => {
    const { token } = await issued();
    const { client, transport } = bridge(token);
    try {
      await client.connect(transport, REQUEST);
      const { tools } = await client.listTools(undefined, REQUEST);
      expect(tools.map((tool) => tool.name).sort()).toEqual(["comparePrices", "discoverServices", "getPayment", "getSpending", "payForService"]);
      const found = await callTool(client, "discoverServices", { query: "weather" });
      const names = (found.services as Array<{ name: string }>).map((service) => service.name);
      expect(names).toEqual(expect.arrayContaining(["QuickWeather Pro", "Budget Weather"]));
    } finally {
      await client.close();
    }
  });

  test("quotes a payment that waits for the person's approval on the deployment's own page (APP_URL), whatever address the bridge reached", async () => {
    const { token } = await issued();
    const { client, transport } = bridge(token);
    try {
      await client.connect(transport, REQUEST);
      const quoted = await callTool(client, "payForService", { url: sandboxService(sandbox, "weather-express").url, query: { city: "Lisbon" } });
      expect(quoted).toMatchObject({ status: "awaiting-approval", quote: { service: "QuickWeather Pro" } });
      const paymentId = String(quoted.paymentId);
      expect(paymentId).toMatch(/^pay_/);
      expect(quoted.approvalUrl).toBe(`${ORIGIN}/approve/${paymentId}`);
      expect(ORIGIN).not.toBe(http.url);
    } finally {
      await client.close();
    }
  });

  test("a garbage token: the app's request is answered with the server's 401 explanation", async () => {
    // The initialize request is refused, so connect() itself rejects with the bridge's answer.
    const outcome = await connectOutcome("x402mcp_bad.bad");
    expect(outcome).toMatchObject({ connected: false, code: -32000 });
    expect(outcome.message).toMatch(/unauthorized/);
    expect(outcome.message).toMatch(/not issued by this server/);
  });

  test("a revoked grant: refused with the server's explanation", async () => {
    const { token, grant, cookie } = await issued();
    expect(await connectOutcome(token)).toEqual({ connected: true });
    const revoke = await mcp.fetch(`${http.url}/api/mcp/grants`, {
      method: "DELETE",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ id: grant.id, validUntil: grant.validUntil }),
    });
    expect(revoke.status).toBe(200);
    const outcome = await connectOutcome(token);
    expect(outcome).toMatchObject({ connected: false, code: -32000 });
    expect(outcome.message).toMatch(/unauthorized/);
    expect(outcome.message).toMatch(/revoked/);
  });

  test("without X402_MCP_URL and X402_MCP_TOKEN it says so and exits with code 2", async () => {
    const child = spawn(process.execPath, [BRIDGE], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", NODE_ENV: "test" }, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      const code = await new Promise<number | null>((resolve, reject) => {
        child.once("error", reject);
        child.once("close", (exitCode) => resolve(exitCode));
      });
      expect(code).toBe(2);
      expect(stderr).toMatch(/X402_MCP_URL/);
      expect(stderr).toMatch(/X402_MCP_TOKEN/);
    } finally {
      if (child.exitCode === null) child.kill();
    }
  });
});
