#!/usr/bin/env node
// The MCP door for AI apps that speak only stdio (docs/contract.md, section 11): a bridge that
// carries each JSON-RPC message between the app (stdin/stdout) and this agent's /api/mcp
// (Streamable HTTP) with the access grant as its bearer token. It holds no state and no key:
// the server checks the grant and does everything else.
//
//   X402_MCP_URL=https://your-deployment.example/api/mcp X402_MCP_TOKEN=x402mcp_… node bin/mcp-stdio.mjs
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const url = process.env.X402_MCP_URL;
const token = process.env.X402_MCP_TOKEN;
if (!url || !token) {
  process.stderr.write("Set X402_MCP_URL (the agent's /api/mcp) and X402_MCP_TOKEN (an access grant from the page: Connect an AI app).\n");
  process.exit(2);
}

const remote = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
const local = new StdioServerTransport();

local.onmessage = (message) => {
  remote.send(message).catch((error) => {
    // A request the server refused (a 401 for an expired or revoked grant, a 413...) is answered
    // to the app with the server's own words; a notification has no one to answer.
    if (!("id" in message) || message.id === undefined) return;
    const reason = error instanceof Error ? error.message : String(error);
    void local.send({ jsonrpc: "2.0", id: message.id, error: { code: -32000, message: reason } });
  });
};
remote.onmessage = (message) => void local.send(message);
remote.onerror = (error) => process.stderr.write(`[x402 mcp bridge] ${error.message}\n`);
local.onclose = () => void remote.close().finally(() => process.exit(0));

await remote.start();
await local.start();
