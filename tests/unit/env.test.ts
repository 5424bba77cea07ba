import { describe, expect, test } from "vitest";
import { parseServerEnv } from "@/lib/env";

describe("configuration", () => {
  test("a bad value fails with a message that names the variable", () => {
    expect(() => parseServerEnv({ CHAT_COOLDOWN_SECONDS: "soon" })).toThrow(/CHAT_COOLDOWN_SECONDS/);
    expect(() => parseServerEnv({ X402_NETWORKS: "base" })).toThrow(/X402_NETWORKS/);
    expect(() => parseServerEnv({ X402_DISCOVERY_URLS: "not a url" })).toThrow(/X402_DISCOVERY_URLS/);
    expect(() => parseServerEnv({ RPC_URL_base: "http://127.0.0.1:8545" })).toThrow(/RPC_URL_base/);
    expect(() => parseServerEnv({ USDC_ADDRESS_31337: "0x123" })).toThrow(/USDC_ADDRESS_31337/);
    expect(() => parseServerEnv({ MODEL_PROVIDER: "google" })).toThrow(/GOOGLE_GENERATIVE_AI_API_KEY/);
    expect(() => parseServerEnv({ DEFAULT_LIMIT_DAILY: "0.1234567" })).toThrow(/DEFAULT_LIMIT_DAILY/);
  });

  test("reads lists, per-chain URLs and defaults", () => {
    const env = parseServerEnv({
      X402_DISCOVERY_URLS: "http://127.0.0.1:4030, http://127.0.0.1:4031",
      X402_NETWORKS: "eip155:31337",
      RPC_URL_31337: "http://127.0.0.1:8545",
      CHAT_COOLDOWN_SECONDS: "",
    });
    expect(env.X402_DISCOVERY_URLS).toEqual(["http://127.0.0.1:4030", "http://127.0.0.1:4031"]);
    expect(env.X402_NETWORKS).toEqual(["eip155:31337"]);
    expect(env.rpcUrls).toEqual({ 31337: "http://127.0.0.1:8545" });
    expect(env.CHAT_COOLDOWN_SECONDS).toBe(50);
    expect(env.DEFAULT_LIMIT_DAILY).toBe("1");
  });

  test("the client's address is trusted from nowhere unless configured; a bad setting names its variable", () => {
    const unset = parseServerEnv({});
    expect([unset.TRUSTED_PROXY_HOPS, unset.CLIENT_IP_HEADER]).toEqual([0, undefined]);
    expect(parseServerEnv({ TRUSTED_PROXY_HOPS: "1", CLIENT_IP_HEADER: "X-Vercel-Forwarded-For" })).toMatchObject({
      TRUSTED_PROXY_HOPS: 1,
      CLIENT_IP_HEADER: "x-vercel-forwarded-for",
    });
    expect(() => parseServerEnv({ TRUSTED_PROXY_HOPS: "-1" })).toThrow(/TRUSTED_PROXY_HOPS/);
    expect(() => parseServerEnv({ CLIENT_IP_HEADER: "x real ip" })).toThrow(/CLIENT_IP_HEADER/);
  });
});
