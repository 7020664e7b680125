// Strict field validation of HorizontalPodAutoscalers at both served versions, from the autoscaling/v1 and
// autoscaling/v2 definitions of Kubernetes v1.34.0's OpenAPI (openapi/builtin-definitions.ts): the same 400
// kube-apiserver answers (`strict decoding error: unknown field …`), the object not stored; Warn drops the field.
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import type { RequestContext } from "../request-context.js";
import { SimApiServer } from "../sim-apiserver.js";
import { failure } from "../status-failure.test-util.js";

function engine() {
  return new SimApiServer({
    clock: new FakeClock(),
    rand: seededRand(5),
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
  });
}

const target = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };

describe("HorizontalPodAutoscaler strict decoding (autoscaling/v1 and v2 OpenAPI definitions)", () => {
  it("autoscaling/v2: an unknown field in a metric target is a 400 naming it, nothing stored", async () => {
    const e = engine();
    const rv = e.currentResourceVersion;
    const hpa: KubeObject = {
      metadata: { name: "h2" },
      spec: {
        scaleTargetRef: target,
        maxReplicas: 4,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50, averageUtilisation: 5 } },
          },
        ],
        minReplicaz: 1,
      },
    };
    const s = await failure(
      e.create("horizontalpodautoscalers.autoscaling", "default", hpa, { fieldValidation: "Strict" }),
    );
    expect([s.code, s.reason, s.message]).toEqual([
      400,
      "BadRequest",
      'HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: strict decoding error: unknown field "spec.metrics[0].resource.target.averageUtilisation", unknown field "spec.minReplicaz"',
    ]);
    expect(e.currentResourceVersion).toBe(rv);
    e.stop();
  });

  it("autoscaling/v1: an unknown spec field is a 400; v1's own fields decode", async () => {
    const e = engine();
    const ok: KubeObject = {
      metadata: { name: "h1" },
      spec: { scaleTargetRef: target, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 70 },
    };
    await e.create("horizontalpodautoscalers.v1.autoscaling", "default", ok, { fieldValidation: "Strict" });
    const bad: KubeObject = { metadata: { name: "h1b" }, spec: { ...(ok.spec as object), metrics: [] } };
    const s = await failure(
      e.create("horizontalpodautoscalers.v1.autoscaling", "default", bad, { fieldValidation: "Strict" }),
    );
    expect([s.code, s.message]).toEqual([
      400,
      'HorizontalPodAutoscaler in version "v1" cannot be handled as a HorizontalPodAutoscaler: strict decoding error: unknown field "spec.metrics"',
    ]);
    e.stop();
  });

  it("Warn (the default) stores the HPA without the unknown field and warns", async () => {
    const e = engine();
    const ctx: RequestContext = { warnings: [] };
    const stored = await e.create(
      "horizontalpodautoscalers.autoscaling",
      "default",
      { metadata: { name: "h" }, spec: { scaleTargetRef: target, maxReplicas: 2, bogus: true } },
      ctx,
    );
    expect(ctx.warnings).toEqual(['unknown field "spec.bogus"']);
    expect(stored.spec).not.toHaveProperty("bogus");
    e.stop();
  });
});
