// When `npm run demo` and `npm run bench` rebuild the app: only when the build is missing, older
// than its sources, or was made with other public values (which Next bakes into the page).
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildStaleReason, dateBuildFromItsStart, writeBuildEnvMarker, type NextAppBuild } from "@/sandbox/next-app";

let root: string;
const built = new Date("2026-01-02T00:00:00Z");
const before = new Date("2026-01-01T00:00:00Z");
const after = new Date("2026-01-03T00:00:00Z");

const build = (publicEnv: Record<string, string> = {}): NextAppBuild => ({ root, sources: ["app", "next.config.ts"], publicEnv });

async function writeAt(path: string, content: string, time: Date) {
  await writeFile(join(root, path), content);
  await utimes(join(root, path), time, time);
}

async function makeBuild(publicEnv: Record<string, string>) {
  await mkdir(join(root, ".next"), { recursive: true });
  await writeAt(".next/BUILD_ID", "id", built);
  await writeBuildEnvMarker(root, publicEnv);
  await utimes(join(root, ".next", "build-env.json"), built, built);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "next-app-build-"));
  await mkdir(join(root, "app"));
  await writeAt("app/page.tsx", "page", before);
  await utimes(join(root, "app"), before, before);
  await writeAt("next.config.ts", "config", before);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("buildStaleReason", () => {
  it("asks for a build when there is none", () => {
    expect(buildStaleReason(build())).toMatchInlineSnapshot(`"no build yet"`);
  });

  it("reuses a build made with the same public values and older sources", async () => {
    await makeBuild({ NEXT_PUBLIC_SANDBOX: "1" });
    expect(buildStaleReason(build({ NEXT_PUBLIC_SANDBOX: "1" }))).toBeUndefined();
  });

  it("rebuilds when the build was made with other public values", async () => {
    await makeBuild({ NEXT_PUBLIC_SANDBOX: "1" });
    expect(buildStaleReason(build({}))).toMatchInlineSnapshot(`"the last build was made with other public values"`);
  });

  it("rebuilds when a source changed after the build, however deep", async () => {
    await makeBuild({});
    await mkdir(join(root, "app", "chat"));
    await writeAt("app/chat/part.tsx", "part", after);
    // Only the file is new: its folders keep their old times.
    await utimes(join(root, "app", "chat"), before, before);
    await utimes(join(root, "app"), before, before);
    expect(buildStaleReason(build({}))).toMatchInlineSnapshot(`"sources changed since the last build"`);
  });

  it("rebuilds a build that was not made through this module", async () => {
    await mkdir(join(root, ".next"), { recursive: true });
    await writeAt(".next/BUILD_ID", "id", built);
    expect(buildStaleReason(build({}))).toMatchInlineSnapshot(`"the last build was made elsewhere"`);
  });
});

describe("a build dated from its start", () => {
  it("is stale when a source was saved while it ran, though its files were written after", async () => {
    const started = new Date("2026-01-02T00:00:00Z");
    const savedDuring = new Date("2026-01-02T00:01:00Z");
    const finished = new Date("2026-01-02T00:03:00Z");
    await mkdir(join(root, ".next"), { recursive: true });
    await writeAt(".next/BUILD_ID", "id", finished);
    await writeAt("app/page.tsx", "page, saved mid-build", savedDuring);
    await dateBuildFromItsStart(root, started);
    await writeBuildEnvMarker(root, {});
    expect(buildStaleReason(build())).toBe("sources changed since the last build");
  });
});
