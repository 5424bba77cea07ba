// Next's start-up hook: runs once when a server instance starts (each cold start on a serverless
// host). A production server with a missing or bad variable stops here, naming it. The database
// starts opening here, beside the rest of the start-up, rather than on the first request.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkServerEnvAtStartup } = await import("@/lib/env");
  checkServerEnvAtStartup();
  const { getDatabase } = await import("@/lib/db");
  // Not awaited: the server does not wait for it. A failure is met again, and reported, by the first request that needs it.
  getDatabase().catch(() => undefined);
}
