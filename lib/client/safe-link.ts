// Links that come from the server's stream (explorer pages) are put into `href` only when they
// are http(s), absolute or relative to this app (the sandbox serves its own transaction page):
// never `javascript:` or `data:`, whatever a stream line holds.

export function safeLink(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url, "http://app.invalid");
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? url : undefined;
  } catch {
    return undefined;
  }
}
