// Next's start-up hook: runs once when a server instance starts (each cold start on a serverless
// host). A production server with a missing or bad variable stops here, naming it.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkServerEnvAtStartup } = await import("@/lib/env");
  checkServerEnvAtStartup();
}
