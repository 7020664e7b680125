import { FakeClock } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw } from "./http-client.test-util.js";

let srv: EngineServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const json = { "content-type": "application/json" };

interface PodJson {
  status: { phase?: string; containerStatuses: { state: unknown }[] };
  [k: string]: unknown;
}
const T0 = Date.parse("2026-01-02T03:04:05Z");

async function post(path: string, body: unknown) {
  const r = await fetchRaw(`${srv!.url}${path}`, { method: "POST", headers: json, body: JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.json as Record<string, unknown>;
}

/** A pod bound to node `n1` whose containers run since T0 (the kubelet's status, written by hand). */
async function runningPod(
  spec: Record<string, unknown>,
  state: Record<string, unknown> = { running: { startedAt: "2026-01-02T03:04:05Z" } },
) {
  const pod = await post("/api/v1/namespaces/default/pods", { metadata: { name: "p" }, spec });
  await post("/api/v1/namespaces/default/pods/p/binding", { metadata: { name: "p" }, target: { name: "n1" } });
  const names = (spec.containers as { name: string }[]).map((c) => c.name);
  const cur = (await fetchRaw(`${srv!.url}/api/v1/namespaces/default/pods/p`)).json as PodJson;
  const r = await fetchRaw(`${srv!.url}/api/v1/namespaces/default/pods/p/status`, {
    method: "PUT",
    headers: json,
    body: JSON.stringify({
      ...cur,
      status: {
        phase: "Running",
        containerStatuses: names.map((name) => ({
          name,
          ready: true,
          restartCount: 0,
          image: "i",
          imageID: "",
          state,
        })),
      },
    }),
  });
  expect(r.status).toBe(200);
  return pod;
}

const log = (q = "") => fetchRaw(`${srv!.url}/api/v1/namespaces/default/pods/p/log${q}`);

describe("pods/log (LogREST, LogLocation, validateContainerLogStatus)", () => {
  it("TestContainerOutput-style: env from a ConfigMap and a Secret, printed by `env`", async () => {
    srv = await startEngineServer(new FakeClock(T0));
    await post("/api/v1/namespaces/default/configmaps", { metadata: { name: "cm" }, data: { "data-1": "value-1" } });
    await post("/api/v1/namespaces/default/secrets", {
      metadata: { name: "s" },
      data: { "data-1": Buffer.from("secret-1").toString("base64") },
    });
    await runningPod({
      restartPolicy: "Never",
      containers: [
        {
          name: "env-test",
          image: "busybox",
          command: ["sh", "-c", "env"],
          env: [
            { name: "CONFIG_DATA_1", valueFrom: { configMapKeyRef: { name: "cm", key: "data-1" } } },
            { name: "SECRET_DATA", valueFrom: { secretKeyRef: { name: "s", key: "data-1" } } },
            { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            { name: "COMPOSED", value: "$(CONFIG_DATA_1)-x" },
          ],
          envFrom: [{ prefix: "p-", configMapRef: { name: "cm" } }],
        },
      ],
    });
    const r = await log();
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/plain");
    const lines = r.text.split("\n");
    for (const want of [
      "CONFIG_DATA_1=value-1",
      "SECRET_DATA=secret-1",
      "POD_NAME=p",
      "COMPOSED=value-1-x",
      "p-data-1=value-1",
      "KUBERNETES_SERVICE_HOST=10.96.0.1",
    ])
      expect(lines).toContain(want);
  });

  it("a container prints once, at its start: a later ConfigMap change shows in the next instance, previous keeps the old", async () => {
    srv = await startEngineServer(new FakeClock(T0));
    await post("/api/v1/namespaces/default/configmaps", { metadata: { name: "cm" }, data: { V: "one" } });
    await runningPod({
      containers: [
        { name: "c", image: "busybox", command: ["printenv", "V"], envFrom: [{ configMapRef: { name: "cm" } }] },
      ],
    });
    const cm = (await fetchRaw(`${srv.url}/api/v1/namespaces/default/configmaps/cm`)).json as Record<string, unknown>;
    const put = await fetchRaw(`${srv.url}/api/v1/namespaces/default/configmaps/cm`, {
      method: "PUT",
      headers: json,
      body: JSON.stringify({ ...cm, data: { V: "two" } }),
    });
    expect(put.status).toBe(200);
    expect((await log()).text).toBe("one\n");
    // The kubelet restarts the container: the new instance starts with the ConfigMap as it is now.
    const cur = (await fetchRaw(`${srv.url}/api/v1/namespaces/default/pods/p`)).json as PodJson;
    const old = cur.status.containerStatuses[0]!.state as { running: { startedAt: string } };
    cur.status.containerStatuses[0] = {
      ...cur.status.containerStatuses[0]!,
      restartCount: 1,
      state: { running: { startedAt: "2026-01-02T03:05:00Z" } },
      lastState: { terminated: { exitCode: 0, startedAt: old.running.startedAt, containerID: "containerd://c" } },
    } as PodJson["status"]["containerStatuses"][number];
    const u = await fetchRaw(`${srv.url}/api/v1/namespaces/default/pods/p/status`, {
      method: "PUT",
      headers: json,
      body: JSON.stringify(cur),
    });
    expect(u.status).toBe(200);
    expect((await log()).text).toBe("two\n");
    expect((await log("?previous=true")).text).toBe("one\n");
  });

  it("timestamps, tailLines and limitBytes shape the text as kubelet does", async () => {
    srv = await startEngineServer(new FakeClock(T0 + 60_000));
    await runningPod({
      containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "echo one; echo two && echo three"] }],
    });
    expect((await log()).text).toBe("one\ntwo\nthree\n");
    expect((await log("?tailLines=2")).text).toBe("two\nthree\n");
    expect((await log("?tailLines=0")).text).toBe("");
    expect((await log("?limitBytes=5")).text).toBe("one\nt");
    expect((await log("?timestamps=true&tailLines=1")).text).toBe("2026-01-02T03:04:05Z three\n");
    // The lines were printed 60 s ago: sinceSeconds=30 drops them, sinceSeconds=120 keeps them.
    expect((await log("?sinceSeconds=30")).text).toBe("");
    expect((await log("?sinceSeconds=120")).text).toBe("one\ntwo\nthree\n");
    expect((await log("?sinceTime=2026-01-02T03:04:06Z")).text).toBe("");
  });

  it("ValidatePodLogOptions: 422 PodLogOptions for negative tailLines, limitBytes < 1, both since options", async () => {
    srv = await startEngineServer(new FakeClock(T0));
    await runningPod({ containers: [{ name: "c", image: "i" }] });
    const bad = await log("?tailLines=-1&limitBytes=0");
    expect(bad.status).toBe(422);
    expect((bad.json as { message: string }).message).toBe(
      'PodLogOptions "p" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]',
    );
    const both = await log("?sinceSeconds=1&sinceTime=2026-01-02T03:04:05Z");
    expect(both.status).toBe(422);
    expect((both.json as { message: string }).message).toContain(
      "at most one of `sinceTime` or `sinceSeconds` may be specified",
    );
    expect((await log("?tailLines=x")).status).toBe(400);
  });

  it("LogLocation: a container name is required with several containers and must be the pod's", async () => {
    srv = await startEngineServer(new FakeClock(T0));
    await runningPod({
      containers: [
        { name: "a", image: "i" },
        { name: "b", image: "i" },
      ],
      initContainers: [{ name: "init", image: "i" }],
    });
    const none = await log();
    expect(none.status).toBe(400);
    expect((none.json as { message: string }).message).toBe(
      "a container name must be specified for pod p, choose one of: [init a b]",
    );
    const wrong = await log("?container=x");
    expect(wrong.status).toBe(400);
    expect((wrong.json as { message: string }).message).toBe("container x is not valid for pod p");
    expect((await log("?container=b")).status).toBe(200);
    expect((await fetchRaw(`${srv.url}/api/v1/namespaces/default/pods/nope/log`)).status).toBe(404);
  });

  it("validateContainerLogStatus: a waiting container is 400 'waiting to start'; previous needs a terminated last state", async () => {
    srv = await startEngineServer(new FakeClock(T0));
    await runningPod({ containers: [{ name: "c", image: "i" }] }, { waiting: { reason: "ContainerCreating" } });
    const w = await log();
    expect(w.status).toBe(400);
    expect((w.json as { message: string }).message).toBe(
      'container "c" in pod "p" is waiting to start: ContainerCreating',
    );
    const prev = await log("?previous=true");
    expect(prev.status).toBe(400);
    expect((prev.json as { message: string }).message).toBe('previous terminated container "c" in pod "p" not found');
  });

  it("a pod not yet on a node has an empty log (upstream's nil location)", async () => {
    srv = await startEngineServer(new FakeClock(T0));
    await post("/api/v1/namespaces/default/pods", {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "i" }] },
    });
    const r = await log();
    expect(r.status).toBe(200);
    expect(r.text).toBe("");
  });

  it("follow streams the log and ends when the container stops running", async () => {
    srv = await startEngineServer(new FakeClock(T0));
    await runningPod({ containers: [{ name: "c", image: "busybox", command: ["echo", "hello"] }] });
    let ended = false;
    const pending = log("?follow=true").then((r) => {
      ended = true;
      return r;
    });
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(ended).toBe(false);
    const cur = (await fetchRaw(`${srv.url}/api/v1/namespaces/default/pods/p`)).json as PodJson;
    cur.status.containerStatuses[0]!.state = {
      terminated: { exitCode: 0, reason: "Completed", startedAt: "2026-01-02T03:04:05Z" },
    };
    cur.status.phase = "Succeeded";
    const u = await fetchRaw(`${srv.url}/api/v1/namespaces/default/pods/p/status`, {
      method: "PUT",
      headers: json,
      body: JSON.stringify(cur),
    });
    expect(u.status).toBe(200);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.headers["transfer-encoding"]).toBe("chunked");
    expect(r.text).toBe("hello\n");
  });
});
