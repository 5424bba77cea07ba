// Next's start-up hook: runs once when a server instance starts (each cold start on a serverless
// host). A production server with a missing or bad variable stops here, naming it. The database
// starts opening here, beside the loading of the route that the first request needs, and the
// routes use what it opened (lib/db keeps one per process). A moment later, in the background,
// the registries are read, so that a large one's catalogue is being indexed before the first
// question about it.
const WARM_AFTER_MS = 2_000;
/** As often as a sweep may run (SWEEP_EVERY_MS), not imported: the sweep's code loads on the first tick. */
const SWEEP_TIMER_MS = 60_000;

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkServerEnvAtStartup, serverEnv } = await import("@/lib/env");
  checkServerEnvAtStartup();
  // Not awaited: the server starts listening meanwhile. A failed open is the first request's to
  // meet (it tries again and answers with the error).
  void import("@/lib/db").then(({ getDatabase }) => getDatabase()).catch(() => undefined);
  const warm = setTimeout(() => {
    void Promise.all([import("@/lib/x402/discovery"), import("@/lib/tools/discovery-env")])
      .then(([{ warmDiscovery }, { discoveryEnvOf }]) => warmDiscovery(discoveryEnvOf(serverEnv())))
      .catch(() => undefined);
  }, WARM_AFTER_MS);
  warm.unref?.();
  // A long-lived server keeps its unfinished payments reconciled even when nobody asks (a service
  // that collects a held maximum late is counted within two sweep periods); on a serverless host
  // requests do it (lib/payments/sweep.ts), and this timer dies with the instance.
  const sweeper = setInterval(() => {
    void Promise.all([import("@/lib/db"), import("@/lib/payments/sweep")])
      .then(async ([{ getDatabase }, { sweepIfDue }]) => sweepIfDue({ db: await getDatabase(), env: serverEnv() }))
      .catch(() => undefined);
  }, SWEEP_TIMER_MS);
  sweeper.unref?.();
}
