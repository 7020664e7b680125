// Runs the controller program of docs/informer.md ("Writing a controller") as a user would: compiled, as its own
// Node process, with KUBECONFIG pointing at the simulated apiserver over HTTP. It must mirror labelled ConfigMaps
// (those present at start and those created later), follow updates, delete mirrors with their sources, leave
// unlabelled ConfigMaps alone, and stop cleanly on SIGTERM. Real time and sockets, like the interop tests: waits
// poll for the expected state, never sleep a fixed time.
import { isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnStreaming } from "../interop/run.js";
import { type DocProgramRig, startDocProgramRig } from "./doc-program.js";

type ConfigMap = KubeObject & { data?: Record<string, string> };

let rig: DocProgramRig;

beforeAll(async () => {
  rig = await startDocProgramRig("docs/informer.md", "## Writing a controller", "controller-walkthrough");
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

async function mirrorOf(name: string, namespace = "default"): Promise<ConfigMap | undefined> {
  try {
    return (await rig.engine.get("configmaps", namespace, `${name}-mirror`)) as ConfigMap;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const source = (name: string, data: Record<string, string>, labels: Record<string, string> = { mirror: "true" }) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", labels },
  data,
});

describe("docs/informer.md: the controller walkthrough", () => {
  it("mirrors labelled ConfigMaps, follows updates and deletes, and stops on SIGTERM", async () => {
    await rig.engine.create("configmaps", "default", source("before", { a: "1" }));
    await rig.engine.create("configmaps", "default", source("plain", { p: "1" }, { other: "x" }));
    const proc = spawnStreaming(process.execPath, [rig.program], { KUBECONFIG: rig.kubeconfig });
    try {
      await proc.waitForLine(/^synced 1 ConfigMaps labelled mirror=true; running 2 workers$/, 60_000);
      await expect
        .poll(() => mirrorOf("before"), { timeout: 30_000 })
        .toMatchObject({
          data: { a: "1" },
          metadata: { labels: { "mirror-of": "before" } },
        });

      await rig.engine.create("configmaps", "default", source("later", { b: "2" }));
      await expect.poll(() => mirrorOf("later"), { timeout: 30_000 }).toMatchObject({ data: { b: "2" } });

      const current = (await rig.engine.get("configmaps", "default", "before")) as ConfigMap;
      await rig.engine.update("configmaps", "default", "before", { ...current, data: { a: "changed" } });
      await expect.poll(async () => (await mirrorOf("before"))?.data, { timeout: 30_000 }).toEqual({ a: "changed" });

      await rig.engine.delete("configmaps", "default", "later");
      await expect.poll(() => mirrorOf("later"), { timeout: 30_000 }).toBeUndefined();

      expect(await mirrorOf("plain")).toBeUndefined();
      expect(proc.lines).toContain("reconciled default/before");
    } finally {
      await proc.kill();
    }
    expect(proc.child.exitCode, proc.stderr()).toBe(0);
    expect(proc.lines.at(-1)).toBe("stopped");
    expect(proc.stderr()).toBe("");
  }, 120_000);
});
