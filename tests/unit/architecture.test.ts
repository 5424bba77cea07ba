// The homes docs/architecture.md names, held against the code: a chain family is named in code
// only in the rails, lib/chain and the page's own wallet code (and in the few server files that
// keep the request's and the session's older field names, listed here); a protocol's name only
// in its own folders; a scheme's extra signature in no door, wire schema or component. A new
// family, protocol or scheme named outside its home fails here, with the file and the line.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";

const root = path.resolve(__dirname, "../..");

function sourceFiles(folder: string): string[] {
  const full = path.join(root, folder);
  if (!statSync(full).isDirectory()) return [folder];
  return readdirSync(full).flatMap((name) => {
    const relative = path.join(folder, name);
    if (statSync(path.join(root, relative)).isDirectory()) return sourceFiles(relative);
    return /\.(ts|tsx)$/.test(name) ? [relative] : [];
  });
}

/** The lines of code (comments aside) of each file that match, as "file:line". */
function namedIn(files: readonly string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    readFileSync(path.join(root, file), "utf8")
      .split("\n")
      .flatMap((line, index) => (!/^\s*(\/\/|\*|\/\*)/.test(line) && pattern.test(line) ? [`${file}:${index + 1}`] : [])),
  );
}

const under = (prefixes: readonly string[]) => (file: string) => prefixes.some((prefix) => file.startsWith(prefix));
const server = [...sourceFiles("lib"), ...sourceFiles("app"), "proxy.ts", "instrumentation.ts"];

describe("where things are named", () => {
  test("a chain family is named in server code only in the rails and lib/chain, and in the files that keep older wire names", () => {
    const homes = under(["lib/payments/rails/", "lib/chain/", "lib/client/"]);
    // The request's `walletAddress`/`solanaAddress`, the session's `wallet`/`solanaWallet`, the
    // page's two wallet buttons, and the offline model's names for networks a person types.
    const keptWireNames = ["app/page.tsx", "lib/chat/request.ts", "lib/session.ts", "lib/chat/offline-turns.ts"];
    const files = [...new Set(namedIn(server.filter((file) => !homes(file)), /eip155|`0x\$\{string\}`|solana/i).map((hit) => hit.split(":")[0]))];
    expect(files.filter((file) => !keptWireNames.includes(file ?? ""))).toEqual([]);
    expect(files.length).toBeLessThanOrEqual(5);
  });

  test("a protocol is named only in its own folders: nothing else branches on x402 or MPP", () => {
    const homes = under(["lib/payments/protocols/", "lib/x402/", "lib/mpp/", "lib/payments/rails/evm/mpp-charge/"]);
    const files = [...server, ...sourceFiles("components")].filter((file) => !homes(file));
    expect(namedIn(files, /["'`](x402|mpp)["'`]|MPP_EVM_CHARGE|mpp-evm-charge/)).toEqual([]);
  });

  test("a scheme's extra signature is named by no door, wire schema or component: they carry the list", () => {
    const files = [...sourceFiles("lib/chat"), ...sourceFiles("lib/mcp"), ...sourceFiles("lib/protocol"), ...sourceFiles("lib/client"), ...sourceFiles("components"), ...sourceFiles("app")];
    expect(namedIn(files, /permit/i)).toEqual([]);
  });
});
