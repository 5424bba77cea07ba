// The server is not a proxy to the inside: real servers on loopback addresses that the guarded
// fetch may reach only through the allow-list, however the address is reached (literal IP,
// a host name resolving to it, a name that changes its answer, a redirect, IPv6 forms).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { guardedFetch, RefusedDestinationError, type Resolve } from "@/lib/net/guarded-fetch";
import { answers, startLoopbackServer, type LoopbackServer } from "./loopback-server";

let allowed: LoopbackServer;
let other: LoopbackServer;
let hidden: LoopbackServer;

beforeAll(async () => {
  allowed = await startLoopbackServer(answers("allowed"));
  other = await startLoopbackServer(answers("other"));
  // The rest of the loopback range stays refused when only 127.0.0.1 is allowed.
  hidden = await startLoopbackServer(answers("hidden"), { host: "127.0.0.2" });
});

afterAll(async () => {
  await Promise.all([allowed?.close(), other?.close(), hidden?.close()]);
});

const SANDBOX = ["127.0.0.1"];

async function refusal(promise: Promise<unknown>): Promise<RefusedDestinationError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RefusedDestinationError);
  return error as RefusedDestinationError;
}

/** A resolver whose answers the test decides, one list per lookup (the last one repeats). */
function answering(...answers: string[][]): Resolve & { calls: number } {
  const resolve = Object.assign(
    async () => {
      const list = answers[Math.min(resolve.calls, answers.length - 1)] ?? [];
      resolve.calls += 1;
      return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    },
    { calls: 0 },
  );
  return resolve;
}

describe("a loopback server outside the allow-list", () => {
  test("is refused by IP, with a message that says why, and receives nothing", async () => {
    const before = allowed.requests.length;
    const error = await refusal(guardedFetch(`${allowed.origin}/secret`));
    expect(error.message).toMatchInlineSnapshot(
      `"The service at 127.0.0.1 is not reachable from here: it points to this server's own loopback address (127.0.0.1), and this agent only calls public addresses."`,
    );
    expect(allowed.requests.length).toBe(before);
  });

  test("is reached once its address is allowed", async () => {
    const response = await guardedFetch(`${allowed.origin}/data`, { allowPrivate: SANDBOX });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("allowed");
  });

  test("127.0.0.2 is refused while 127.0.0.1 is allowed", async () => {
    const error = await refusal(guardedFetch(`${hidden.origin}/secret`, { allowPrivate: SANDBOX }));
    expect(error.refusal).toEqual({ reason: "address", address: "127.0.0.2", kind: "loopback" });
    expect(hidden.requests).toEqual([]);
  });

  test("is refused through localhost, a name that resolves to loopback", async () => {
    const before = allowed.requests.length;
    const error = await refusal(guardedFetch(`http://localhost:${allowed.port}/secret`));
    expect(error.message).toContain("loopback");
    expect(allowed.requests.length).toBe(before);
  });

  test("is refused through any name that resolves to it, and reached through one when allowed", async () => {
    const before = allowed.requests.length;
    await refusal(guardedFetch(`http://innocent.example:${allowed.port}/secret`, { resolve: answering(["127.0.0.1"]) }));
    expect(allowed.requests.length).toBe(before);
    const response = await guardedFetch(`http://innocent.example:${allowed.port}/data`, {
      allowPrivate: SANDBOX,
      resolve: answering(["127.0.0.1"]),
    });
    expect(await response.text()).toBe("allowed");
  });

  test("a name is refused when any one of its addresses is refused", async () => {
    const error = await refusal(
      guardedFetch(`http://mixed.example:${allowed.port}/`, { allowPrivate: SANDBOX, resolve: answering(["127.0.0.1", "127.0.0.2"]) }),
    );
    expect(error.refusal).toMatchObject({ address: "127.0.0.2" });
  });

  test("a name that changes its answer (DNS rebinding) is judged by the address each connection really uses", async () => {
    // A private server on the same port as the allowed one, where a rebound name would lead.
    const twin = await startLoopbackServer(answers("inside"), { host: "127.0.0.2", port: allowed.port });
    try {
      const resolve = answering(["127.0.0.1"], ["127.0.0.2"]);
      const url = `http://rebinding.example:${allowed.port}/`;
      // One lookup per connection, and the connection goes to the address that lookup checked.
      const first = await guardedFetch(url, { allowPrivate: SANDBOX, resolve });
      expect(await first.text()).toBe("allowed");
      expect(resolve.calls).toBe(1);
      // The next connection resolves again and meets the new, refused answer.
      const error = await refusal(guardedFetch(url, { allowPrivate: SANDBOX, resolve }));
      expect(error.refusal).toMatchObject({ address: "127.0.0.2", kind: "loopback" });
      expect(resolve.calls).toBe(2);
      expect(twin.requests).toEqual([]);
    } finally {
      await twin.close();
    }
  });

  test("IPv6 loopback and the IPv4-mapped form of 127.0.0.1 are refused", async () => {
    expect((await refusal(guardedFetch(`http://[::1]:${allowed.port}/`))).refusal).toMatchObject({ kind: "loopback" });
    expect((await refusal(guardedFetch(`http://[::ffff:127.0.0.1]:${allowed.port}/`))).refusal).toMatchObject({ kind: "loopback" });
    expect((await refusal(guardedFetch(`http://[::1]:${allowed.port}/`, { allowPrivate: SANDBOX }))).refusal).toMatchObject({
      kind: "loopback",
    });
  });

  test("the cloud metadata address is refused before any connection", async () => {
    const error = await refusal(guardedFetch("http://169.254.169.254/latest/meta-data/"));
    expect(error.message).toContain("cloud metadata address (169.254.169.254)");
    const named = await refusal(guardedFetch("http://metadata.example/latest/meta-data/", { resolve: answering(["169.254.169.254"]) }));
    expect(named.refusal).toMatchObject({ kind: "cloud metadata" });
  });

  test("decimal and hexadecimal spellings of a loopback address are refused", async () => {
    await refusal(guardedFetch(`http://2130706433:${allowed.port}/`));
    await refusal(guardedFetch(`http://0x7f.1:${allowed.port}/`));
  });
});

describe("ports and schemes", () => {
  test("a public address is called on ports 80 and 443 only", async () => {
    const error = await refusal(guardedFetch("http://public.example:8080/", { resolve: answering(["93.184.215.14"]) }));
    expect(error.refusal).toEqual({ reason: "port", address: "93.184.215.14", port: 8080 });
    expect(error.message).toContain("port 8080");
  });

  test("a public service is called over https only: plain http is refused before anything is sent", async () => {
    const error = await refusal(guardedFetch("http://public.example/weather", { resolve: answering(["93.184.215.14"]) }));
    expect(error.refusal).toEqual({ reason: "plain-http", address: "93.184.215.14" });
    expect(error.message).toContain("only calls services over https");
  });

  test("only http and https", async () => {
    const error = await refusal(guardedFetch("ftp://example.com/file"));
    expect(error.refusal).toEqual({ reason: "scheme", protocol: "ftp:" });
  });
});

describe("redirects", () => {
  test("a redirect from an allowed server to a private one is returned, never followed", async () => {
    const redirecting = await startLoopbackServer((_request, response) => {
      response.writeHead(302, { location: `${hidden.origin}/secret`, connection: "close" });
      response.end();
    });
    try {
      const response = await guardedFetch(`${redirecting.origin}/`, { allowPrivate: SANDBOX });
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe(`${hidden.origin}/secret`);
      expect(hidden.requests).toEqual([]);
    } finally {
      await redirecting.close();
    }
  });

  test("a redirect to another allowed server is not followed either", async () => {
    const redirecting = await startLoopbackServer((_request, response) => {
      response.writeHead(307, { location: `${other.origin}/elsewhere`, connection: "close" });
      response.end();
    });
    try {
      const response = await guardedFetch(`${redirecting.origin}/`, { allowPrivate: SANDBOX });
      expect(response.status).toBe(307);
      expect(other.requests).toEqual([]);
    } finally {
      await redirecting.close();
    }
  });
});
