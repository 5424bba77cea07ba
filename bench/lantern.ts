/**
 * `npm run bench:lantern -- <folder> [--tasks]`: Lighthouse's simulation of each page load that
 * `npm run bench:phone -- --reports=<folder>` kept, computed again from the load's trace and network
 * log, as Lighthouse computed it for the report (the figures agree to the millisecond), and taken
 * apart:
 *
 * - the simulated first and largest paints, and what the largest paint counted: the first-load
 *   scripts whose download ended before the paint was presented (the simulation waits for each
 *   one, unless its evaluation is a task of 10 ms or more that began after that paint);
 * - the simulated blocking time, and with `--tasks` each main-thread task it counts: when the
 *   simulation runs it, how long it lasts there, and its real time in the trace.
 *
 * Lighthouse's metrics code is not a public interface: this reads the modules of the version the
 * bench runs (package.json).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

type TraceEvent = { name: string; dur?: number; args?: { data?: { url?: string } } };
type GraphNode = {
  type: "network" | "cpu";
  startTime: number;
  duration: number;
  request?: { url: string; resourceType?: string; transferSize: number };
  childEvents?: TraceEvent[];
};
type Timing = { startTime: number; endTime: number; duration: number };
type Estimate = { timeInMs: number; nodeTimings: Map<GraphNode, Timing> };
type Metric = { timing: number; optimisticEstimate: Estimate; pessimisticEstimate: Estimate };
type Computed = { request(data: unknown, context: unknown): Promise<Metric> };

async function computed(module: string, name: string): Promise<Computed> {
  const loaded = (await import(`lighthouse/core/computed/metrics/${module}.js`)) as Record<string, Computed>;
  const metric = loaded[name];
  if (!metric) throw new Error(`Lighthouse has no ${name} in ${module}`);
  return metric;
}

const ms = (value: number) => `${Math.round(value)} ms`;
const fileOf = (url: string) => url.split("/").pop()?.slice(0, 32) ?? url;

function taskWords(node: GraphNode): string {
  const events = (node.childEvents ?? []).filter((event) => (event.dur ?? 0) > 1000);
  const names = [...new Set(events.map((event) => event.name))].filter((name) => /Parse|Layout|Paint|Evaluate|Commit|Timer|Animation|Function/.test(name));
  const scripts = [...new Set(events.flatMap((event) => (event.args?.data?.url?.includes("/_next/") ? [fileOf(event.args.data.url)] : [])))];
  return [...names.slice(0, 4), ...scripts].join(", ");
}

async function main(): Promise<void> {
  const folder = process.argv.slice(2).find((argument) => !argument.startsWith("--"));
  if (!folder) throw new Error("usage: npm run bench:lantern -- <folder of bench:phone --reports> [--tasks]");
  const tasks = process.argv.includes("--tasks");
  const [fcpMetric, lcpMetric, tbtMetric] = await Promise.all([
    computed("lantern-first-contentful-paint", "LanternFirstContentfulPaint"),
    computed("lantern-largest-contentful-paint", "LanternLargestContentfulPaint"),
    computed("lantern-total-blocking-time", "LanternTotalBlockingTime"),
  ]);
  const loads = readdirSync(resolve(folder))
    .filter((file) => file.endsWith(".devtoolslog.json"))
    .sort()
    .map((file) => join(resolve(folder), file.replace(/\.devtoolslog\.json$/, "")));
  if (loads.length === 0) throw new Error(`${folder} holds no network log (.devtoolslog.json): run bench:phone with --reports`);
  for (const load of loads) {
    const report = JSON.parse(readFileSync(`${load}.report.json`, "utf8"));
    const data = {
      trace: JSON.parse(readFileSync(`${load}.trace.json`, "utf8")),
      devtoolsLog: JSON.parse(readFileSync(`${load}.devtoolslog.json`, "utf8")),
      settings: report.configSettings,
      gatherContext: { gatherMode: "navigation" },
      URL: { requestedUrl: report.requestedUrl, mainDocumentUrl: report.mainDocumentUrl, finalDisplayedUrl: report.finalDisplayedUrl },
      SourceMaps: [],
      HostDPR: report.configSettings.screenEmulation.deviceScaleFactor,
    };
    const context = { computedCache: new Map(), settings: report.configSettings };
    const fcp = await fcpMetric.request(data, context);
    const lcp = await lcpMetric.request(data, context);
    const tbt = await tbtMetric.request(data, context);
    const scripts = [...lcp.pessimisticEstimate.nodeTimings.keys()].filter((node) => node.request?.resourceType === "Script");
    const kB = Math.round(scripts.reduce((sum, node) => sum + (node.request?.transferSize ?? 0), 0) / 1024);
    console.log(
      `${load.split("/").pop()}: performance ${Math.round(report.categories.performance.score * 100)}; ` +
        `first paint ${ms(fcp.timing)}, largest paint ${ms(lcp.timing)} (counting ${scripts.length} scripts, ${kB} kB), blocking time ${ms(tbt.timing)}`,
    );
    if (!tasks) continue;
    // The blocking time's simulation (its pessimistic run), from its estimate of the first paint on.
    const firstPaint = fcp.optimisticEstimate.timeInMs;
    const timings = [...tbt.pessimisticEstimate.nodeTimings.entries()].sort(([, a], [, b]) => a.startTime - b.startTime);
    const start = timings[0]?.[0].startTime ?? 0;
    for (const [node, timing] of timings) {
      if (node.type !== "cpu" || timing.duration < 50 || timing.endTime < firstPaint) continue;
      const counted = Math.max(0, timing.endTime - Math.max(timing.startTime, firstPaint) - 50);
      console.log(
        `  ${ms(timing.startTime)} +${ms(timing.duration)} (about ${ms(counted)} of it counted; real ${(node.duration / 1000).toFixed(1)} ms at ${Math.round((node.startTime - start) / 1000)} ms): ${taskWords(node)}`,
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
