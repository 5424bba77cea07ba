// The chat page's First Load JS: the JavaScript a browser fetches before the page is usable,
// gzipped. The chunk list comes from the build's own route statistics
// (.next/diagnostics/route-bundle-stats.json), or, where a build has none, from its manifests:
// the root main files plus the client entry chunks of the root layout and the page.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

export type FirstLoadJsResult = {
  route: string;
  source: string;
  chunks: Array<{ path: string; bytes: number; gzipBytes: number }>;
  bytes: number;
  gzipBytes: number;
};

type RouteBundleStats = Array<{ route: string; firstLoadChunkPaths: string[] }>;

function chunksFromRouteStats(root: string, route: string): string[] | undefined {
  const path = join(root, ".next", "diagnostics", "route-bundle-stats.json");
  if (!existsSync(path)) return undefined;
  const stats = JSON.parse(readFileSync(path, "utf8")) as RouteBundleStats;
  return stats.find((entry) => entry.route === route)?.firstLoadChunkPaths.map((chunk) => chunk.replace(/^\.next\//, ""));
}

function chunksFromManifests(root: string): string[] {
  const buildManifest = JSON.parse(readFileSync(join(root, ".next", "build-manifest.json"), "utf8")) as { rootMainFiles?: string[] };
  const clientManifest = readFileSync(join(root, ".next", "server", "app", "page_client-reference-manifest.js"), "utf8");
  const entries = /"entryJSFiles":(\{[^}]*\})/.exec(clientManifest)?.[1];
  const entryFiles = entries ? (JSON.parse(entries) as Record<string, string[]>) : {};
  const pageFiles = Object.entries(entryFiles)
    .filter(([entry]) => entry.endsWith("/app/layout") || entry.endsWith("/app/page"))
    .flatMap(([, files]) => files);
  return [...new Set([...(buildManifest.rootMainFiles ?? []), ...pageFiles])];
}

export function measureFirstLoadJs(root: string, route = "/"): FirstLoadJsResult {
  const fromStats = chunksFromRouteStats(root, route);
  const paths = fromStats ?? chunksFromManifests(root);
  const chunks = paths.map((path) => {
    const content = readFileSync(join(root, ".next", path));
    return { path, bytes: content.length, gzipBytes: gzipSync(content).length };
  });
  return {
    route,
    source: fromStats ? ".next/diagnostics/route-bundle-stats.json" : ".next/build-manifest.json + page_client-reference-manifest.js",
    chunks: chunks.sort((a, b) => b.gzipBytes - a.gzipBytes),
    bytes: chunks.reduce((sum, chunk) => sum + chunk.bytes, 0),
    gzipBytes: chunks.reduce((sum, chunk) => sum + chunk.gzipBytes, 0),
  };
}
