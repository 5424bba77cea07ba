// Next's start-up hook: runs once when a server instance starts (each cold start on a serverless
// host). A production server with a missing or bad variable stops here, naming it. A moment
// later, in the background, the registries are read, so that a large one's catalogue is being
// indexed before the first question about it.
const WARM_AFTER_MS = 2_000;

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkServerEnvAtStartup, serverEnv } = await import("@/lib/env");
  checkServerEnvAtStartup();
  const warm = setTimeout(() => {
    void import("@/lib/x402/discovery")
      .then(({ warmDiscovery }) => warmDiscovery(serverEnv()))
      .catch(() => undefined);
  }, WARM_AFTER_MS);
  warm.unref?.();
}
