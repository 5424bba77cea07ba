// The origin a person reaches this app at, for links the server hands out to be opened
// elsewhere (an AI app's approval link): the Host the request came to (behind a proxy, the one
// it forwarded), with the scheme the proxy reports. A framework's request URL can name its own
// listening address instead (`localhost` for a server bound to 127.0.0.1), which no one else
// can open.
import type { ServerEnv } from "@/lib/env";

export function publicOrigin(request: Request, env: Pick<ServerEnv, "TRUSTED_PROXY_HOPS">): string {
  const url = new URL(request.url);
  const behindProxy = env.TRUSTED_PROXY_HOPS > 0;
  const forwardedHost = behindProxy ? request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  const host = forwardedHost || request.headers.get("host") || url.host;
  const forwardedProto = behindProxy ? request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() : undefined;
  const scheme = forwardedProto === "https" || forwardedProto === "http" ? forwardedProto : url.protocol.replace(":", "");
  // Only a host name and a port: anything else in the header falls back to the request's own.
  return /^[a-z0-9.-]+(:\d{1,5})?$/i.test(host) || /^\[[0-9a-f:.]+\](:\d{1,5})?$/i.test(host) ? `${scheme}://${host}` : url.origin;
}
