// Watches a page for content security policy violations: the browser's `securitypolicyviolation`
// events (every document the page loads, from before its first script) and the console errors
// Chromium prints for them. A policy that blocks something the page needs shows up here.
import type { Page } from "@playwright/test";

export type CspWatch = { violations: string[] };

export async function watchCspViolations(page: Page): Promise<CspWatch> {
  const watch: CspWatch = { violations: [] };
  await page.exposeFunction("__reportCspViolation", (violation: string) => {
    watch.violations.push(violation);
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __reportCspViolation: (text: string) => void }).__reportCspViolation;
      report(`${event.effectiveDirective} blocked ${event.blockedURI || "inline code"} (${event.sourceFile}:${event.lineNumber})`);
    });
  });
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) watch.violations.push(message.text());
  });
  return watch;
}
