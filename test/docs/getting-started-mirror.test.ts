// Runs the controller of docs/getting-started.md ("Your first controller, from an empty folder") as a user would: its
// own Node process, KUBECONFIG pointing at the simulated apiserver over HTTP. It must mirror a labelled ConfigMap into
// an owned Secret (base64 data), put back a deleted mirror, remove the mirror when the label goes, leave unlabelled
// ConfigMaps alone, log only info lines, and stop cleanly on SIGTERM. Real time and sockets: waits poll for the state, never sleep.
import { isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnStreaming } from "../interop/run.js";
import { type DocProgramRig, startDocProgramRig } from "./doc-program.js";

let rig: DocProgramRig;

beforeAll(async () => {
  rig = await startDocProgramRig(
    "docs/getting-started.md",
    "## Your first controller, from an empty folder",
    "getting-started-mirror",
  );
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

async function secret(name: string): Promise<KubeObject | undefined> {
  try {
    return await rig.engine.get("secrets", "default", name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const LABEL = "mirror.example.com/enabled";

describe("docs/getting-started.md: the ConfigMap → Secret mirror", () => {
  it("mirrors, restores a deleted mirror, removes it with the label, ignores unlabelled ConfigMaps, stops on SIGTERM", async () => {
    await rig.engine.create("configmaps", "default", {
      metadata: { name: "web", labels: { [LABEL]: "true" } },
      data: { color: "blue" },
    });
    await rig.engine.create("configmaps", "default", { metadata: { name: "plain" }, data: { p: "1" } });
    const proc = spawnStreaming(process.execPath, [rig.program, "--health-probe-bind-address=127.0.0.1:0"], {
      KUBECONFIG: rig.kubeconfig,
    });
    try {
      await expect
        .poll(() => secret("web-mirror"), { timeout: 60_000 })
        .toMatchObject({
          data: { color: Buffer.from("blue").toString("base64") },
          metadata: { ownerReferences: [{ kind: "ConfigMap", name: "web", controller: true }] },
        });
      await rig.engine.delete("secrets", "default", "web-mirror");
      await expect.poll(() => secret("web-mirror"), { timeout: 30_000 }).toBeDefined();
      const cm = await rig.engine.get("configmaps", "default", "web");
      await rig.engine.update("configmaps", "default", "web", { ...cm, metadata: { ...cm.metadata, labels: {} } });
      await expect.poll(() => secret("web-mirror"), { timeout: 30_000 }).toBeUndefined();
      expect(await secret("plain-mirror")).toBeUndefined();
      // The Event is written after the delete it reports, by the recorder's own writer: wait for it.
      await expect
        .poll(async () => (await rig.engine.list("events", "default")).items.map((e) => e.reason), { timeout: 30_000 })
        .toEqual(expect.arrayContaining(["MirrorCreated", "MirrorDeleted"]));
    } finally {
      await proc.kill();
    }
    expect(proc.child.exitCode, proc.stderr()).toBe(0);
    // stderr carries the runtime's log lines (JSON, info and above): none may be a warning or an error.
    const lines = proc
      .stderr()
      .split("\n")
      .filter((l) => l !== "");
    expect(lines.length).toBeGreaterThan(0);
    const levels = lines.map((l) => (JSON.parse(l) as { level?: string }).level);
    expect(
      levels.filter((l) => l !== "info" && l !== "debug"),
      proc.stderr(),
    ).toEqual([]);
  }, 120_000);
});
