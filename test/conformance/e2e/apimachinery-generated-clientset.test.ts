// test/e2e/apimachinery/generated_clientset.go re-implemented with @kubernetes/client-node against the simulator
// over HTTP, with the cluster's moving parts running ten times as fast as the wall clock (the pod test waits for the
// pod to run before deleting it gracefully: a pod on no node would be deleted at once).
import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eCluster, startE2eCluster, watchEvents } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster({ cluster: { nodes: 1 }, clockRate: 10 });
});
afterAll(async () => {
  await c.close();
});

let n = 0;
const timeValue = () => `${Date.now() % 1_000_000}${++n}`;

describe("[sig-api-machinery] Generated clientset (apimachinery/generated_clientset.go)", () => {
  it("should create pods, set the deletionTimestamp and deletionGracePeriodSeconds of the pod", async () => {
    const ns = await c.namespace("clientset");
    const value = timeValue();
    const name = `pod${value}`;
    const selector = `time=${value}`;
    const pods = await c.core.listNamespacedPod({ namespace: ns, labelSelector: selector });
    expect(pods.items).toEqual([]);
    const gracePeriod = 31;
    const events = await watchEvents(
      c,
      `/api/v1/namespaces/${ns}/pods`,
      { labelSelector: selector, resourceVersion: pods.metadata?.resourceVersion },
      (evs) =>
        evs.some((e) => {
          const m = (e.object as V1Pod).metadata;
          return (
            e.type === "MODIFIED" && m?.deletionTimestamp !== undefined && m.deletionGracePeriodSeconds === gracePeriod
          );
        }),
      async () => {
        const pod = await c.core.createNamespacedPod({
          namespace: ns,
          body: {
            metadata: { name, labels: { name: "foo", time: value } },
            spec: {
              containers: [
                {
                  name: "nginx",
                  image: "nginx",
                  ports: [{ containerPort: 80 }],
                  livenessProbe: { httpGet: { path: "/index.html", port: 8080 }, initialDelaySeconds: 30 },
                },
              ],
            },
          },
        });
        const listed = await c.core.listNamespacedPod({
          namespace: ns,
          labelSelector: selector,
          resourceVersion: pod.metadata?.resourceVersion,
        });
        expect(listed.items).toHaveLength(1);
        await expect
          .poll(async () => (await c.core.readNamespacedPod({ namespace: ns, name })).status?.phase, {
            timeout: 10_000,
            interval: 100,
          })
          .toBe("Running");
        await c.core.deleteNamespacedPod({ namespace: ns, name, gracePeriodSeconds: gracePeriod });
      },
    );
    expect(events[0]?.type).toBe("ADDED");
    const deleting = events.find((e) => (e.object as V1Pod).metadata?.deletionTimestamp !== undefined);
    expect(deleting?.type).toBe("MODIFIED");
    expect((deleting?.object as V1Pod | undefined)?.metadata?.deletionGracePeriodSeconds).toBe(gracePeriod);
  });

  it("should create v1 cronJobs, delete cronJobs, watch cronJobs", async () => {
    const ns = await c.namespace("clientset");
    const value = timeValue();
    const selector = `time=${value}`;
    const batch = c.kc.makeApiClient(c.k8s.BatchV1Api);
    const cronJobs = await batch.listNamespacedCronJob({ namespace: ns, labelSelector: selector });
    expect(cronJobs.items).toEqual([]);
    const name = `cronjob${value}`;
    const events = await watchEvents(
      c,
      `/apis/batch/v1/namespaces/${ns}/cronjobs`,
      { labelSelector: selector, resourceVersion: cronJobs.metadata?.resourceVersion },
      (evs: ReadonlyArray<{ type: string; object: KubernetesObject }>) => evs.length >= 1,
      async () => {
        const cronJob = await batch.createNamespacedCronJob({
          namespace: ns,
          body: {
            metadata: { name, labels: { time: value } },
            spec: {
              schedule: "*/1 * * * ?",
              concurrencyPolicy: "Allow",
              jobTemplate: {
                spec: {
                  parallelism: 1,
                  completions: 1,
                  template: {
                    spec: {
                      restartPolicy: "OnFailure",
                      volumes: [{ name: "data", emptyDir: {} }],
                      containers: [
                        { name: "c", image: "busybox", volumeMounts: [{ mountPath: "/data", name: "data" }] },
                      ],
                    },
                  },
                },
              },
            },
          },
        });
        const listed = await batch.listNamespacedCronJob({
          namespace: ns,
          labelSelector: selector,
          resourceVersion: cronJob.metadata?.resourceVersion,
        });
        expect(listed.items).toHaveLength(1);
      },
    );
    expect(events[0]?.type).toBe("ADDED");
    await batch.deleteNamespacedCronJob({ namespace: ns, name, propagationPolicy: "Background" });
    expect((await batch.listNamespacedCronJob({ namespace: ns, labelSelector: selector })).items).toEqual([]);
  });
});
