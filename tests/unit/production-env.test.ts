// The production start-up checks: a server meant for several instances refuses to start without
// the shared approval key, and on a serverless host without a database that outlives it.
import { describe, expect, test } from "vitest";
import { EnvError, parseServerEnv, serverlessHost } from "@/lib/env";

const SECRET = "a-production-secret-of-32-bytes-or-more";
const DATABASE_URL = "postgres://app@db.example.com:5432/ledger?sslmode=require";
const APP_URL = "https://pay.example.com";

const startupError = (source: Record<string, string>) => {
  try {
    parseServerEnv(source);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvError);
    return (error as Error).message;
  }
  throw new Error("expected the configuration to be refused");
};

describe("production configuration", () => {
  test("a production server without PAYMENT_TOKEN_SECRET refuses to start and says why", () => {
    const message = startupError({ NODE_ENV: "production" });
    expect(message).toMatch(/^PAYMENT_TOKEN_SECRET must be set in production \(at least 32 bytes/);
    expect(message).toContain("an approval quoted by one instance is refused by another");
  });

  test("a production secret shorter than 32 bytes is refused, naming the variable", () => {
    expect(() => parseServerEnv({ NODE_ENV: "production", PAYMENT_TOKEN_SECRET: "short" })).toThrow(
      /PAYMENT_TOKEN_SECRET: at least 32 characters/,
    );
  });

  test("on a serverless host a production server also needs DATABASE_URL", () => {
    for (const host of ["VERCEL", "AWS_LAMBDA_FUNCTION_NAME", "NETLIFY"]) {
      const message = startupError({ NODE_ENV: "production", PAYMENT_TOKEN_SECRET: SECRET, CLIENT_IP_HEADER: "x-real-ip", APP_URL, [host]: "1" });
      expect(message).toMatch(new RegExp(`^DATABASE_URL must be set on a serverless host \\(${host} is set\\)`));
      expect(message).toContain("lost at the next cold start");
    }
    const env = parseServerEnv({ NODE_ENV: "production", PAYMENT_TOKEN_SECRET: SECRET, CLIENT_IP_HEADER: "x-vercel-forwarded-for", APP_URL, VERCEL: "1", DATABASE_URL });
    expect(env.DATABASE_URL).toBe(DATABASE_URL);
  });

  test("a production server that cannot tell clients apart refuses to start, unless the deployer chose it", () => {
    const message = startupError({ NODE_ENV: "production", PAYMENT_TOKEN_SECRET: SECRET });
    expect(message).toContain("TRUSTED_PROXY_HOPS or CLIENT_IP_HEADER must be set in production");
    expect(message).toContain("CLIENT_IDENTITY=shared");
    for (const setting of [{ TRUSTED_PROXY_HOPS: "1" }, { CLIENT_IP_HEADER: "x-vercel-forwarded-for" }, { CLIENT_IDENTITY: "shared" }]) {
      expect(() => parseServerEnv({ NODE_ENV: "production", PAYMENT_TOKEN_SECRET: SECRET, APP_URL, ...setting })).not.toThrow();
    }
    expect(() => parseServerEnv({ NODE_ENV: "production", PAYMENT_TOKEN_SECRET: SECRET, CLIENT_IDENTITY: "anyone" })).toThrow(/CLIENT_IDENTITY/);
  });

  test("a production server on one machine may keep its ledger in the embedded database", () => {
    const env = parseServerEnv({ NODE_ENV: "production", PAYMENT_TOKEN_SECRET: SECRET, CLIENT_IDENTITY: "shared", APP_URL });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(serverlessHost({ NODE_ENV: "production" })).toBeUndefined();
  });

  test("a production server without its public origin refuses to start: no request header may choose it", () => {
    const message = startupError({ NODE_ENV: "production", PAYMENT_TOKEN_SECRET: SECRET, CLIENT_IDENTITY: "shared" });
    expect(message).toMatch(/^APP_URL must be set in production/);
    expect(message).toContain("APP_URL_FROM");
    const production = { NODE_ENV: "production", PAYMENT_TOKEN_SECRET: SECRET, CLIENT_IDENTITY: "shared" };
    expect(parseServerEnv({ ...production, APP_URL: "https://Pay.Example.com/" }).appOrigin).toBe("https://pay.example.com");
    expect(parseServerEnv({ ...production, APP_URL: "http://127.0.0.1:3107" }).appOrigin).toBe("http://127.0.0.1:3107");
    // A host's own variable, only where the deployer names it; a bare host name is taken as https.
    expect(parseServerEnv({ ...production, APP_URL_FROM: "VERCEL_PROJECT_PRODUCTION_URL", VERCEL_PROJECT_PRODUCTION_URL: "agent.vercel.app" }).appOrigin).toBe("https://agent.vercel.app");
    expect(parseServerEnv({ ...production, APP_URL, VERCEL_PROJECT_PRODUCTION_URL: "agent.vercel.app" }).appOrigin).toBe(APP_URL);
    expect(startupError({ ...production, APP_URL_FROM: "VERCEL_PROJECT_PRODUCTION_URL" })).toMatch(/VERCEL_PROJECT_PRODUCTION_URL is not set/);
    expect(startupError({ ...production, APP_URL: "https://pay.example.com/chat" })).toMatch(/^APP_URL: an origin alone/);
    expect(startupError({ ...production, APP_URL: "ftp://pay.example.com" })).toMatch(/APP_URL/);
    // Outside production, this machine.
    expect(parseServerEnv({}).appOrigin).toBe("http://localhost:3000");
    expect(parseServerEnv({ PORT: "3300" }).appOrigin).toBe("http://localhost:3300");
  });

  test("development, the local sandbox and the build step start without the production variables", () => {
    expect(() => parseServerEnv({})).not.toThrow();
    expect(() => parseServerEnv({ NODE_ENV: "development", VERCEL: "1" })).not.toThrow();
    expect(() => parseServerEnv({ NODE_ENV: "production", SANDBOX_INFO_FILE: ".data/sandbox.json" })).not.toThrow();
    expect(() => parseServerEnv({ NODE_ENV: "production", NEXT_PHASE: "phase-production-build", VERCEL: "1" })).not.toThrow();
  });

  test("a previous key without a current one is refused: it only verifies older approvals", () => {
    expect(() => parseServerEnv({ PAYMENT_TOKEN_SECRET_PREVIOUS: SECRET })).toThrow(
      /^PAYMENT_TOKEN_SECRET_PREVIOUS is set without PAYMENT_TOKEN_SECRET/,
    );
    expect(() => parseServerEnv({ PAYMENT_TOKEN_SECRET: SECRET, PAYMENT_TOKEN_SECRET_PREVIOUS: "short" })).toThrow(
      /PAYMENT_TOKEN_SECRET_PREVIOUS: at least 32 characters/,
    );
  });
});
