// A slow network for the chat's streamed answers, in the browser: the end-to-end server answers a
// reply in one burst, a hosted model over a long connection does not.
import type { Page } from "@playwright/test";

/** Hands the page each streamed chat answer a line at a time: the whole answer is read first, then
 * each line goes in the first frame after the page has shown the one before it, once the log
 * has scrolled itself in that frame, as a long reply on a slow network arrives. The log then grows
 * between its own scroll to the bottom and that scroll's event, a frame later. `pauseMs` waits that
 * long more before each line, for a reply still arriving while the person does something; the
 * answers before the `fromAnswer`th (0-based) are handed over as they come. */
export async function paceChatStream(page: Page, { pauseMs = 0, fromAnswer = 0 }: { pauseMs?: number; fromAnswer?: number } = {}): Promise<void> {
  await page.addInitScript(({ pause, from }) => {
    let answers = 0;
    const fetchReal = window.fetch.bind(window);
    /** Resolves once the conversation log has changed (or after a while, for a line that shows nothing). */
    const shown = () =>
      new Promise<void>((resolve) => {
        const done = () => {
          observer.disconnect();
          clearTimeout(timer);
          resolve();
        };
        const observer = new MutationObserver(done);
        const timer = setTimeout(done, 200);
        observer.observe(document.querySelector('[role="log"]') ?? document.body, { subtree: true, childList: true, characterData: true });
      });
    window.fetch = async (input, init) => {
      const response = await fetchReal(input, init);
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (!new URL(url, location.href).pathname.endsWith("/api/chat") || !response.ok || answers++ < from) return response;
      const lines = (await response.text()).split(/(?<=\n)/);
      const encoder = new TextEncoder();
      let previous: Promise<void> = Promise.resolve();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const line = lines.shift();
          if (line === undefined) return controller.close();
          // The frame callback is asked for once the page has shown the line before, so it runs
          // after the log's own, which that render asked for.
          await previous;
          if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
          await new Promise((resolve) => requestAnimationFrame(resolve));
          previous = shown();
          controller.enqueue(encoder.encode(line));
        },
      });
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
  }, { pause: pauseMs, from: fromAnswer });
}
