// Server configuration (docs/contract.md, section 6), read from the environment once and validated with zod.
// A bad value fails at first use with a message that names the variable.
import { z } from "zod";
import { CONFIGURED_NETWORK_ID_PATTERN, DEFAULT_NETWORKS, NETWORK_ID_EXAMPLE, readChainSettings, type ChainSettings } from "@/lib/chain/configuration";
import { isAddressOrRange } from "@/lib/net/address-policy";

const usdAmount = z
  .string()
  .regex(/^\d{1,7}(\.\d{1,6})?$/, "a USD amount with at most 6 decimals");

const caip2 = z.string().regex(CONFIGURED_NETWORK_ID_PATTERN, `a CAIP-2 network id such as ${NETWORK_ID_EXAMPLE}`);

const commaList = (item: z.ZodType<string, string>) =>
  z
    .string()
    .transform((value) =>
      value
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part.length > 0),
    )
    .pipe(z.array(item));

const addressOrRange = z.string().refine(isAddressOrRange, "an IP address or CIDR range, e.g. 127.0.0.1 or 10.0.0.0/8");

const nonNegativeInt = z.coerce.number().int().min(0);

// ---- Deployment: production start-up checks and approval-key rotation (docs/contract.md, section 6) ----

const deploymentEnvShape = {
  /**
   * The key that signed approvals before the current one. Approvals it signed keep verifying
   * (for their lifetime, at most 10 minutes) while instances switch to a new PAYMENT_TOKEN_SECRET;
   * new approvals are always signed with the current key. Remove it once every instance runs the
   * new key and 10 minutes have passed.
   */
  PAYMENT_TOKEN_SECRET_PREVIOUS: z.string().min(32, "at least 32 characters").optional(),
};

/** Variables that a serverless host sets in every function: many short-lived instances, no disk that lasts. */
const SERVERLESS_HOST_VARIABLES = ["VERCEL", "AWS_LAMBDA_FUNCTION_NAME", "NETLIFY", "K_SERVICE", "FUNCTIONS_WORKER_RUNTIME"];

/** The serverless host variable this process runs under, if any. */
export function serverlessHost(source: Record<string, string | undefined>): string | undefined {
  return SERVERLESS_HOST_VARIABLES.find((name) => Boolean(source[name]));
}

/**
 * A production server (`NODE_ENV=production`, not the local sandbox of `npm run demo`, not the
 * `next build` step) must be configured for several instances: one approval key shared by all,
 * and on a serverless host a ledger that outlives the instance.
 */
type DeploymentSettings = {
  NODE_ENV: string;
  PAYMENT_TOKEN_SECRET?: string | undefined;
  PAYMENT_TOKEN_SECRET_PREVIOUS?: string | undefined;
  DATABASE_URL?: string | undefined;
  SANDBOX_INFO_FILE?: string | undefined;
  TRUSTED_PROXY_HOPS: number;
  CLIENT_IP_HEADER?: string | undefined;
  CLIENT_IDENTITY?: "shared" | undefined;
  APP_URL?: string | undefined;
  APP_URL_FROM?: string | undefined;
};

function checkDeployment(env: DeploymentSettings, source: Record<string, string | undefined>): void {
  if (env.PAYMENT_TOKEN_SECRET_PREVIOUS && !env.PAYMENT_TOKEN_SECRET) {
    throw new EnvError(
      "PAYMENT_TOKEN_SECRET_PREVIOUS is set without PAYMENT_TOKEN_SECRET: the previous key only verifies older approvals; set the new key in PAYMENT_TOKEN_SECRET",
    );
  }
  const production = env.NODE_ENV === "production" && !env.SANDBOX_INFO_FILE && source.NEXT_PHASE !== "phase-production-build";
  if (!production) return;
  if (!env.PAYMENT_TOKEN_SECRET) {
    throw new EnvError(
      "PAYMENT_TOKEN_SECRET must be set in production (at least 32 bytes, e.g. `openssl rand -base64 32`): " +
        "it signs payment approvals, and without it each instance makes its own key, so an approval quoted by one instance is refused by another and every restart voids open quotes",
    );
  }
  if (!env.TRUSTED_PROXY_HOPS && !env.CLIENT_IP_HEADER && env.CLIENT_IDENTITY !== "shared") {
    throw new EnvError(
      "TRUSTED_PROXY_HOPS or CLIENT_IP_HEADER must be set in production (how the proxy or host in front of the app reports each client's address), " +
        "or CLIENT_IDENTITY=shared to count every caller as one client on purpose: without them the server cannot tell clients apart, " +
        "so one person's message makes everyone wait out the cooldown",
    );
  }
  if (!env.APP_URL && !env.APP_URL_FROM) {
    throw new EnvError(
      "APP_URL must be set in production (the origin people open the app at, e.g. https://pay.example.com), or APP_URL_FROM naming the host's own variable that holds it " +
        "(e.g. APP_URL_FROM=VERCEL_PROJECT_PRODUCTION_URL): sign-ins and AI apps' access grants are accepted only for this origin, and the links the server hands out point to it",
    );
  }
  const host = serverlessHost(source);
  if (host && !env.DATABASE_URL) {
    throw new EnvError(
      `DATABASE_URL must be set on a serverless host (${host} is set): without it the ledger is an embedded database on the instance's disk, ` +
        "which is lost at the next cold start and not shared between instances, and spending limits, cooldowns and replay protection with it",
    );
  }
}

/**
 * Validates the configuration as a server instance starts, so a misconfigured production server
 * stops at once with the message naming the variable, rather than answering every request with
 * an error. Called from the instrumentation hook.
 */
export function checkServerEnvAtStartup(exit: (code: number) => never = process.exit): void {
  try {
    serverEnv();
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    console.error(`Refusing to start: ${error.message}`);
    exit(1);
  }
}

// ---- end of deployment ----

const serverEnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  GOOGLE_GENERATIVE_AI_API_KEY: z.string().min(1).optional(),
  GOOGLE_GENERATIVE_AI_BASE_URL: z.url().optional(),
  MODEL_PROVIDER: z.enum(["google", "offline"]).optional(),
  GEMINI_MODEL_FAST: z.string().min(1).default("gemini-3.5-flash"),
  GEMINI_MODEL_PRO: z.string().min(1).default("gemini-3.1-pro-preview"),
  GEMINI_MODEL_BALANCED: z.string().min(1).default("gemini-3.5-flash-lite"),
  X402_DISCOVERY_URLS: commaList(z.url()).default([]),
  /** OpenAPI documents of Machine Payments Protocol services (`x-payment-info`), listed beside the registries' x402 services. */
  MPP_SERVICES: commaList(z.url()).default([]),
  X402_NETWORKS: commaList(caip2).default([...DEFAULT_NETWORKS]),
  /** Blocks per `eth_getLogs` request when a channel's history is searched: hosted RPC providers refuse wider ranges. */
  CHAIN_LOG_RANGE_BLOCKS: nonNegativeInt.min(1).default(2000),
  /** The bearer secret a host's scheduler sends to GET /api/sweep (Vercel Cron sends its CRON_SECRET); unset, that route answers 404. */
  CRON_SECRET: z.string().min(16, "at least 16 characters").optional(),
  /** Addresses the server may call although they are not public (the sandbox's 127.0.0.1). */
  X402_ALLOW_PRIVATE_ADDRESSES: commaList(addressOrRange).default([]),
  DATABASE_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  CHAT_COOLDOWN_SECONDS: nonNegativeInt.default(50),
  CHAT_DEADLINE_SECONDS: z.coerce.number().positive().max(50).default(45),
  /** Proxies in front of the app that append to X-Forwarded-For; 0: the header is ignored. */
  TRUSTED_PROXY_HOPS: nonNegativeInt.max(10).default(0),
  /** A header the host itself sets to the client's address (x-vercel-forwarded-for, x-real-ip...). */
  CLIENT_IP_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, "an HTTP header name such as x-vercel-forwarded-for")
    .transform((name) => name.toLowerCase())
    .optional(),
  /**
   * `shared`: the deployer chose to count every caller as one client (no proxy or host reports
   * the client's address); a production start without it, TRUSTED_PROXY_HOPS or CLIENT_IP_HEADER
   * refuses to run.
   */
  CLIENT_IDENTITY: z.enum(["shared"]).optional(),
  PAYMENT_TOKEN_SECRET: z.string().min(32, "at least 32 characters").optional(),
  /**
   * The one public origin of this deployment (docs/contract.md, section 6): what a sign-in must
   * name, what an access grant's `server` must equal, and where every link the server hands out
   * points. No request header decides it.
   */
  APP_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The name of a variable the host sets to the deployment's address (VERCEL_PROJECT_PRODUCTION_URL...), used when APP_URL is unset. */
  APP_URL_FROM: z.string().regex(/^[A-Z][A-Z0-9_]*$/, "a variable's name, such as VERCEL_PROJECT_PRODUCTION_URL").optional(),
  /** Set by `npm run demo`: the sandbox's description, whose demo wallet the page may use. */
  SANDBOX_INFO_FILE: z.string().min(1).optional(),
  DEFAULT_LIMIT_DAILY: usdAmount.default("1"),
  DEFAULT_LIMIT_WEEKLY: usdAmount.default("5"),
  DEFAULT_LIMIT_MONTHLY: usdAmount.default("20"),
  DEFAULT_LIMIT_PER_PAYMENT: usdAmount.default("0.5"),
  ...deploymentEnvShape,
});

/** The configuration, with the per-chain variables (RPC_URL_<reference>, USDC_ADDRESS_<chainId>) read by lib/chain/configuration.ts. */
export type ServerEnv = z.infer<typeof serverEnvSchema> &
  ChainSettings & {
  modelProvider: "google" | "offline";
  /** The deployment's public origin (`https://host[:port]`), from APP_URL or APP_URL_FROM; in development `http://localhost:PORT` without them. */
  appOrigin: string;
};

export class EnvError extends Error {
  override readonly name = "EnvError";
}

/** Parses an environment; exported for tests, the app uses `serverEnv()`. */
export function parseServerEnv(source: Record<string, string | undefined>): ServerEnv {
  // An empty variable means "unset", as in most .env tooling.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const parsed = serverEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const messages = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new EnvError(`Invalid environment: ${messages.join("; ")}`);
  }
  const env = parsed.data;
  checkDeployment(env, cleaned);
  const { rpcUrls, usdcAddresses } = readChainSettings(cleaned, (message) => {
    throw new EnvError(message);
  });
  const modelProvider = env.MODEL_PROVIDER ?? (env.GOOGLE_GENERATIVE_AI_API_KEY ? "google" : "offline");
  if (modelProvider === "google" && !env.GOOGLE_GENERATIVE_AI_API_KEY) {
    throw new EnvError("MODEL_PROVIDER: google needs GOOGLE_GENERATIVE_AI_API_KEY to be set");
  }
  return { ...env, rpcUrls, usdcAddresses, modelProvider, appOrigin: appOriginOf(env, cleaned) };
}

/**
 * The public origin from APP_URL, else from the variable APP_URL_FROM names (a host's own, which
 * may hold a bare host name: https is assumed), else, outside production, this machine's port.
 */
function appOriginOf(env: { APP_URL?: string | undefined; APP_URL_FROM?: string | undefined }, source: Record<string, string | undefined>): string {
  const named = env.APP_URL ? { variable: "APP_URL", value: env.APP_URL } : env.APP_URL_FROM ? { variable: env.APP_URL_FROM, value: source[env.APP_URL_FROM] } : undefined;
  if (!named) return `http://localhost:${source.PORT ?? "3000"}`;
  if (!named.value) throw new EnvError(`APP_URL_FROM: ${named.variable} is not set, so the app's public origin is unknown; set APP_URL instead`);
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(named.value) ? named.value : `https://${named.value}`);
  } catch {
    throw new EnvError(`${named.variable}: not a URL or host name (${named.value.slice(0, 80)})`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new EnvError(`${named.variable}: an http or https origin`);
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash || url.username || url.password) {
    throw new EnvError(`${named.variable}: an origin alone, such as https://pay.example.com, without a path, query or credentials`);
  }
  return url.origin;
}

let cached: ServerEnv | undefined;

/** The process's configuration, validated on first use and kept. */
export function serverEnv(): ServerEnv {
  cached ??= parseServerEnv(process.env);
  return cached;
}
