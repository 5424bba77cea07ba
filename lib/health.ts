// `GET /api/health`: whether this instance can do its work: the database answers, each
// configured registry answers, each enabled network's RPC answers, each with its time. 200 when
// all do, 503 otherwise. What it says is safe to publish: registries and RPCs are named by their
// host only (an RPC URL often carries an API key in its path or query), and failures by a fixed
// phrase, never by an upstream error message (which can quote the URL). Answers are kept a few
// seconds, so polling it does not multiply calls to the RPCs and registries.
import type { Database } from "@/lib/db";
import { chainHeadOf } from "@/lib/chain/heads";
import type { ServerEnv } from "@/lib/env";

/** Each check gives up after this long. */
export const HEALTH_CHECK_TIMEOUT_MS = 5_000;
/** How long an answer is reused. */
export const HEALTH_CACHE_MS = 5_000;

export type HealthCheck = {
  name: string;
  ok: boolean;
  /** How long the check took, in milliseconds. */
  ms: number;
  /** Why it failed, in a fixed phrase. */
  error?: string;
};

export type HealthReport = {
  status: "ok" | "failing";
  checkedAt: string;
  database: HealthCheck;
  registries: HealthCheck[];
  /** Each enabled network's RPC: `blockNumber` is where the chain is (a Solana network's slot). */
  networks: (HealthCheck & { network: string; blockNumber?: string })[];
};

export type HealthDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  now?: () => number;
};

class CheckFailure extends Error {}

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailure(`${what} did not answer within ${HEALTH_CHECK_TIMEOUT_MS / 1000} s`)), HEALTH_CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

type CheckExtra = { blockNumber?: string };

/** Runs one check within the timeout; `subject` names what answers ("the RPC"). */
async function timed(name: string, subject: string, work: () => Promise<CheckExtra>): Promise<HealthCheck & CheckExtra> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const extra = await withTimeout(work(), subject);
    return { name, ok: true, ms: ms(), ...extra };
  } catch (error) {
    return { name, ok: false, ms: ms(), error: error instanceof CheckFailure ? error.message : `${subject} did not answer` };
  }
}

const hostOf = (url: string | undefined) => {
  if (!url) return "not configured";
  try {
    return new URL(url).host;
  } catch {
    return "invalid URL";
  }
};

function checkDatabase(deps: HealthDependencies) {
  return timed("database", "the database", async () => {
    const db = await deps.database();
    await db.query("SELECT 1");
    return {};
  });
}

function checkRegistry(registry: string) {
  return timed(hostOf(registry), "the registry", async () => {
    const url = new URL(`${registry.replace(/\/+$/, "")}/discovery/resources`);
    url.searchParams.set("type", "http");
    url.searchParams.set("limit", "1");
    const response = await fetch(url, { signal: AbortSignal.timeout(HEALTH_CHECK_TIMEOUT_MS), redirect: "error" });
    await response.body?.cancel();
    if (!response.ok) throw new CheckFailure(`the registry answered HTTP ${response.status}`);
    return {};
  });
}

function checkNetworks(env: ServerEnv) {
  // In the order X402_NETWORKS names them.
  return Promise.all(
    env.X402_NETWORKS.flatMap((id) => {
      const head = chainHeadOf(id, env);
      if (!head) return [];
      return [
        timed(hostOf(head.rpcUrl), "the RPC", async () => {
          if (!head.rpcUrl) throw new CheckFailure(`no ${head.variable} is configured`);
          return { blockNumber: (await head.read()).toString() };
        }).then((check) => ({ ...check, network: id })),
      ];
    }),
  );
}

export async function checkHealth(deps: HealthDependencies): Promise<HealthReport> {
  const env = deps.env();
  const [database, registries, networks] = await Promise.all([
    checkDatabase(deps),
    Promise.all(env.X402_DISCOVERY_URLS.map(checkRegistry)),
    checkNetworks(env),
  ]);
  const ok = database.ok && registries.every((check) => check.ok) && networks.every((check) => check.ok);
  return {
    status: ok ? "ok" : "failing",
    checkedAt: new Date(deps.now?.() ?? Date.now()).toISOString(),
    database,
    registries,
    networks,
  };
}

/** The route's handler, with its short-lived cache of the last answer. */
export function createHealthHandler(deps: HealthDependencies): () => Promise<Response> {
  let last: { at: number; report: Promise<HealthReport> } | undefined;
  return async () => {
    const now = deps.now?.() ?? Date.now();
    if (!last || now - last.at >= HEALTH_CACHE_MS) last = { at: now, report: checkHealth(deps) };
    const report = await last.report;
    return Response.json(report, {
      status: report.status === "ok" ? 200 : 503,
      headers: { "Cache-Control": "no-store" },
    });
  };
}
