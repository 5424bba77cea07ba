// Calling a service through lib/net/service-call: a refused address never connects (so nothing
// can be paid), and a service's answer is read only up to the cap, the cut said in the result.
import { afterEach, describe, expect, test } from "vitest";
import { callService, MAX_ANSWER_BYTES, readServiceBody, ServiceUnreachableError } from "@/lib/net/service-call";
import { startLoopbackServer, streamsHugeBody, type LoopbackServer } from "./loopback-server";

const servers: LoopbackServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(...args: Parameters<typeof startLoopbackServer>): Promise<LoopbackServer> {
  const server = await startLoopbackServer(...args);
  servers.push(server);
  return server;
}

describe("callService", () => {
  test("a service on a private address is a ServiceUnreachableError that never connected", async () => {
    const service = await serve((_request, response) => response.end("{}"));
    const error = await callService({ url: `${service.origin}/weather`, method: "GET" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceUnreachableError);
    const unreachable = error as ServiceUnreachableError;
    expect(unreachable.neverConnected).toBe(true);
    expect(unreachable.refused).toBe(true);
    expect(unreachable.message).toContain("not reachable from here");
    expect(service.requests).toEqual([]);
  });

  test("the same service is called when its address is allowed", async () => {
    const service = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ temperature: 21 }));
    });
    const response = await callService({ url: `${service.origin}/weather`, method: "GET", query: { city: "Lisbon" } }, { allowPrivate: ["127.0.0.1"] });
    expect(await readServiceBody(response)).toEqual({ temperature: 21 });
    expect(service.requests).toEqual(["/weather?city=Lisbon"]);
  });
});

describe("readServiceBody", () => {
  test("a 50 MB answer is cut at the cap, the cut is said, and the rest is never downloaded", async () => {
    const total = 50 * 1024 * 1024;
    let reportSent: (bytes: number) => void = () => undefined;
    const sent = new Promise<number>((resolve) => {
      reportSent = resolve;
    });
    const service = await serve(streamsHugeBody(total, (bytes) => reportSent(bytes)));
    const response = await callService({ url: `${service.origin}/huge`, method: "GET" }, { allowPrivate: ["127.0.0.1"] });
    const body = (await readServiceBody(response)) as { cut: string; partial: string };

    expect(body.cut).toMatchInlineSnapshot(
      `"The service's answer was longer than 64 KB: only its first 64 KB were read, the rest was cut off and not downloaded."`,
    );
    expect(body.partial).toHaveLength(MAX_ANSWER_BYTES);
    // The connection was dropped long before the service could send it all.
    const sentBytes = await sent;
    expect(sentBytes).toBeLessThan(total / 5);
  });

  test("an answer within the cap is read whole: JSON as data, anything else as text", async () => {
    const json = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ headline: "x".repeat(60_000) }));
    });
    const text = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      response.end("café ☕");
    });
    const allow = { allowPrivate: ["127.0.0.1"] };
    expect(await readServiceBody(await callService({ url: json.origin, method: "GET" }, allow))).toEqual({ headline: "x".repeat(60_000) });
    expect(await readServiceBody(await callService({ url: text.origin, method: "GET" }, allow))).toBe("café ☕");
  });

  test("a cut never leaves half a character behind", async () => {
    const service = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      // 3-byte characters: the cap falls inside one of them.
      response.end("€".repeat(30_000));
    });
    const response = await callService({ url: service.origin, method: "GET" }, { allowPrivate: ["127.0.0.1"] });
    const body = (await readServiceBody(response, { maxBytes: 1_000 })) as { cut: string; partial: string };
    expect(body.partial).toBe("€".repeat(333));
    expect(body.cut).toContain("first 999 bytes");
  });
});
