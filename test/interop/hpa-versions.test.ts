// One HorizontalPodAutoscaler through both served versions over HTTP, with @kubernetes/client-node's
// AutoscalingV1Api and AutoscalingV2Api: kube-apiserver keeps one object (storage version autoscaling/v2) and
// converts at the codec (pkg/apis/autoscaling/v1/conversion.go), so a write at one version is read, listed and
// watched at the other, with one uid and one resourceVersion.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, type E2eCluster, startE2eCluster } from "../conformance/e2e/harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

describe("HorizontalPodAutoscalers at autoscaling/v1 and autoscaling/v2 (one storage)", () => {
  it("discovery lists both versions, v2 preferred", async () => {
    const group = (await c.raw("GET", "/apis/autoscaling")).json as {
      versions: Array<{ version: string }>;
      preferredVersion: { version: string };
    };
    expect(group.versions.map((v) => v.version)).toEqual(["v2", "v1"]);
    expect(group.preferredVersion.version).toBe("v2");
    for (const v of ["v1", "v2"]) {
      const list = (await c.raw("GET", `/apis/autoscaling/${v}`)).json as { resources: Array<{ name: string }> };
      expect(list.resources.map((r) => r.name)).toEqual(
        expect.arrayContaining(["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
      );
    }
  });

  it("a v2 object with several metrics is read at v1 converted, written back at v1, and read at v2 intact", async () => {
    const ns = await c.namespace("hpa");
    const v1 = c.kc.makeApiClient(c.k8s.AutoscalingV1Api);
    const v2 = c.kc.makeApiClient(c.k8s.AutoscalingV2Api);
    const created = await v2.createNamespacedHorizontalPodAutoscaler({
      namespace: ns,
      body: {
        metadata: { name: "web" },
        spec: {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
          maxReplicas: 10,
          metrics: [
            { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
            { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 65 } } },
          ],
          behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
        },
      },
    });
    // SetDefaults_HorizontalPodAutoscaler (v2): minReplicas 1, the given behavior's unset rules filled in.
    expect(created.spec?.minReplicas).toBe(1);
    expect(created.spec?.behavior?.scaleUp?.policies).toHaveLength(2);
    expect(created.spec?.behavior?.scaleDown?.selectPolicy).toBe("Max");

    const asV1 = await v1.readNamespacedHorizontalPodAutoscaler({ name: "web", namespace: ns });
    expect(asV1.apiVersion).toBe("autoscaling/v1");
    expect(asV1.spec?.targetCPUUtilizationPercentage).toBe(65);
    expect(asV1.metadata?.uid).toBe(created.metadata?.uid);
    expect(asV1.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const anns = asV1.metadata?.annotations ?? {};
    expect(JSON.parse(anns["autoscaling.alpha.kubernetes.io/metrics"]!)).toEqual([
      { type: "Pods", pods: { metricName: "qps", targetAverageValue: "10" } },
    ]);
    expect(anns["autoscaling.alpha.kubernetes.io/behavior"]).toBeDefined();

    // A v1 client changes what v1 has; what only v2 has survives in the annotations.
    asV1.spec = { ...asV1.spec!, maxReplicas: 20, targetCPUUtilizationPercentage: 50 };
    const replaced = await v1.replaceNamespacedHorizontalPodAutoscaler({ name: "web", namespace: ns, body: asV1 });
    expect(replaced.spec?.maxReplicas).toBe(20);
    const back = await v2.readNamespacedHorizontalPodAutoscaler({ name: "web", namespace: ns });
    expect(back.spec?.maxReplicas).toBe(20);
    expect(back.spec?.metrics).toEqual([
      { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } },
    ]);
    expect(back.spec?.behavior?.scaleDown?.stabilizationWindowSeconds).toBe(60);
    expect(back.metadata?.annotations).toBeUndefined();
  });

  it("a v1 object without a target gets v1's implied 80% CPU; /status written at v2 is read at v1", async () => {
    const ns = await c.namespace("hpa");
    const v1 = c.kc.makeApiClient(c.k8s.AutoscalingV1Api);
    const v2 = c.kc.makeApiClient(c.k8s.AutoscalingV2Api);
    const created = await v1.createNamespacedHorizontalPodAutoscaler({
      namespace: ns,
      body: {
        metadata: { name: "api" },
        spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "api" }, maxReplicas: 3 },
      },
    });
    expect(created.spec?.minReplicas).toBe(1);
    expect(created.spec?.targetCPUUtilizationPercentage).toBe(80);
    const stored = await v2.readNamespacedHorizontalPodAutoscaler({ name: "api", namespace: ns });
    stored.status = {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 97 } } }],
    };
    await v2.replaceNamespacedHorizontalPodAutoscalerStatus({ name: "api", namespace: ns, body: stored });
    const status = await v1.readNamespacedHorizontalPodAutoscalerStatus({ name: "api", namespace: ns });
    expect(status.status).toMatchObject({
      currentReplicas: 2,
      desiredReplicas: 3,
      currentCPUUtilizationPercentage: 97,
    });
  });

  it("validation: min ≤ max and a scale target, the same at both versions", async () => {
    const ns = await c.namespace("hpa");
    const v1 = c.kc.makeApiClient(c.k8s.AutoscalingV1Api);
    const bad = v1.createNamespacedHorizontalPodAutoscaler({
      namespace: ns,
      body: {
        metadata: { name: "bad" },
        spec: { scaleTargetRef: { kind: "", name: "x" }, minReplicas: 5, maxReplicas: 2 },
      },
    });
    const err = await bad.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(codeOf(err)).toBe(422);
    const body = JSON.parse(String((err as { body?: unknown }).body)) as {
      details: { causes: Array<{ field: string }> };
    };
    expect(body.details.causes.map((x) => x.field)).toEqual(["spec.scaleTargetRef.kind", "spec.maxReplicas"]);
  });

  it("a watch at v1 sees an object written at v2, converted", async () => {
    const ns = await c.namespace("hpa");
    const v2 = c.kc.makeApiClient(c.k8s.AutoscalingV2Api);
    const seen: Array<{ type: string; apiVersion: string; target: unknown }> = [];
    const watch = new c.k8s.Watch(c.kc);
    const req = await watch.watch(
      `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`,
      {},
      (type: string, obj: { apiVersion: string; spec: { targetCPUUtilizationPercentage?: number } }) => {
        seen.push({ type, apiVersion: obj.apiVersion, target: obj.spec.targetCPUUtilizationPercentage });
      },
      () => {},
    );
    await v2.createNamespacedHorizontalPodAutoscaler({
      namespace: ns,
      body: {
        metadata: { name: "w" },
        spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "w" }, maxReplicas: 2 },
      },
    });
    await expect.poll(() => seen).toEqual([{ type: "ADDED", apiVersion: "autoscaling/v1", target: 80 }]);
    req.abort();
  });
});
