// The LimitRanger admission plugin: tables from plugin/pkg/admission/limitranger/admission_test.go
// (`TestDefaultContainerResourceRequirements`, `TestMergePodResourceRequirements`, `TestPodLimitFunc`,
// `TestPodLimitFuncApplyDefault`, `TestLimitRangerIgnoresSubresource`, `TestLimitRangerAdmitPod`,
// `TestPersistentVolumeClaimLimitFunc`), a property, and the plugin through the engine.
import type { KubeObject } from "@informer-ts/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failure } from "../status-failure.test-util.js";
import {
  admitLimitRanges,
  aggregateMessage,
  LIMIT_RANGER_ANNOTATION,
  limitRangeViolation,
} from "./limit-ranger-admission.js";
import { pluginEngine } from "./plugin-engine.test-util.js";

type List = Record<string, string>;
const rl = (cpu: string, memory: string): List => ({
  ...(cpu !== "" && { cpu }),
  ...(memory !== "" && { memory }),
});

interface Item {
  type: string;
  min?: List;
  max?: List;
  default?: List;
  defaultRequest?: List;
  maxLimitRequestRatio?: List;
}
const limitRange = (...limits: Item[]): KubeObject => ({
  metadata: { name: "abc", namespace: "test" },
  spec: { limits },
});
/** `createLimitRange`: one item of a type with min, max, default, defaultRequest and ratio. */
const createLimitRange = (type: string, min: List, max: List, def: List, defReq: List, ratio: List): KubeObject =>
  limitRange({ type, min, max, default: def, defaultRequest: defReq, maxLimitRequestRatio: ratio });

const container = (name: string, requests: List, limits: List) => ({
  name,
  image: "i",
  resources: {
    ...(Object.keys(requests).length > 0 && { requests }),
    ...(Object.keys(limits).length > 0 && { limits }),
  },
});
/** `validPod`: `n` containers with the same requirements. */
const validPod = (name: string, n: number, requests: List, limits: List): KubeObject => ({
  metadata: { name, namespace: "test" },
  spec: { containers: Array.from({ length: n }, (_, i) => container(`foo-${i}`, requests, limits)) },
});
const withInit = (pod: KubeObject, requests: List, limits: List): KubeObject => ({
  ...pod,
  spec: { ...(pod.spec as object), initContainers: [container("foo-init", requests, limits)] },
});
const resourcesOf = (pod: KubeObject, i = 0) =>
  (pod.spec as { containers: { resources: { requests?: List; limits?: List } }[] }).containers[i]!.resources;

describe("LimitRanger: defaults (TestDefaultContainerResourceRequirements, TestMergePodResourceRequirements)", () => {
  it("TestMergePodResourceRequirements: an empty pod gets the Container defaults and the annotation", () => {
    const lr = createLimitRange("Container", {}, {}, rl("50m", "5Mi"), rl("100m", "1Mi"), {});
    const pod = validPod("empty", 1, {}, {});
    admitLimitRanges([lr], pod);
    expect(resourcesOf(pod)).toEqual({ requests: rl("100m", "1Mi"), limits: rl("50m", "5Mi") });
    expect(pod.metadata?.annotations?.[LIMIT_RANGER_ANNOTATION]).toBe(
      "LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory limit for container foo-0",
    );
  });

  it("TestMergePodResourceRequirements: what the pod sets is kept, only the rest is defaulted", () => {
    const lr = createLimitRange("Container", {}, {}, rl("50m", "5Mi"), rl("100m", "1Mi"), {});
    const pod = withInit(validPod("partial", 1, rl("", "2Mi"), rl("200m", "")), rl("", "3Mi"), {});
    admitLimitRanges([lr], pod);
    expect(resourcesOf(pod)).toEqual({ requests: rl("100m", "2Mi"), limits: rl("200m", "5Mi") });
    const init = (pod.spec as { initContainers: { resources: unknown }[] }).initContainers[0]!.resources;
    expect(init).toEqual({ requests: rl("100m", "3Mi"), limits: rl("50m", "5Mi") });
    expect(pod.metadata?.annotations?.[LIMIT_RANGER_ANNOTATION]).toBe(
      "LimitRanger plugin set: cpu request for container foo-0; memory limit for container foo-0; " +
        "cpu request for init container foo-init; cpu, memory limit for init container foo-init",
    );
  });

  it("TestMergePodResourceRequirements: a pod that sets everything is unchanged and not annotated", () => {
    const lr = createLimitRange("Container", {}, {}, rl("50m", "5Mi"), rl("100m", "1Mi"), {});
    const pod = validPod("full", 1, rl("1", "1Gi"), rl("2", "2Gi"));
    const before = structuredClone(pod);
    admitLimitRanges([lr], pod);
    expect(pod).toEqual(before);
  });

  it("TestDefaultContainerResourceRequirements: only Container items give defaults", () => {
    const lr = limitRange(
      { type: "Pod", default: rl("1", "1Gi") },
      { type: "PersistentVolumeClaim", max: { storage: "1Gi" } },
    );
    const pod = validPod("none", 1, {}, {});
    admitLimitRanges([lr], pod);
    expect(resourcesOf(pod)).toEqual({});
    expect(pod.metadata?.annotations).toBeUndefined();
  });
});

describe("LimitRanger: TestPodLimitFunc", () => {
  const success: [string, KubeObject, KubeObject][] = [
    [
      "container min/max satisfied",
      createLimitRange("Container", rl("100m", ""), rl("", "100Mi"), {}, {}, {}),
      validPod("ctr-min-cpu-request", 1, rl("200m", "50Mi"), rl("200m", "100Mi")),
    ],
    [
      "pod min on the containers' sum",
      createLimitRange("Pod", rl("200m", ""), {}, {}, {}, {}),
      validPod("pod-min-cpu-request-limit", 2, rl("100m", ""), rl("200m", "")),
    ],
    [
      "pod max on the sum with an init container counted by its maximum",
      createLimitRange("Pod", {}, rl("", "300Mi"), {}, {}, {}),
      withInit(validPod("pod-max-mem", 2, rl("", "100Mi"), rl("", "100Mi")), rl("", "300Mi"), rl("", "300Mi")),
    ],
    [
      "limit/request ratio at the maximum",
      createLimitRange("Container", {}, {}, {}, {}, rl("", "1.5")),
      validPod("ctr-ratio", 1, rl("", "100Mi"), rl("", "150Mi")),
    ],
    [
      "a resource the LimitRange does not name is free",
      createLimitRange("Container", { "ephemeral-storage": "1Gi" }, {}, {}, {}, {}),
      validPod("ctr-eph", 1, { "ephemeral-storage": "2Gi" }, {}),
    ],
  ];
  for (const [name, lr, pod] of success)
    it(`admits: ${name}`, () => expect(limitRangeViolation([lr], "pods", pod)).toBeUndefined());

  const errors: [string, KubeObject, KubeObject, string][] = [
    [
      "container below min request",
      createLimitRange("Container", rl("100m", ""), {}, {}, {}, {}),
      validPod("ctr-min-cpu-request", 1, rl("50m", ""), {}),
      "minimum cpu usage per Container is 100m, but request is 50m",
    ],
    [
      "container without the request a min needs",
      createLimitRange("Container", rl("100m", ""), {}, {}, {}, {}),
      validPod("ctr-min-no-request", 1, {}, {}),
      "minimum cpu usage per Container is 100m.  No request is specified",
    ],
    [
      "container above max limit",
      createLimitRange("Container", {}, rl("", "100Mi"), {}, {}, {}),
      validPod("ctr-max-mem-limit", 1, rl("", "50Mi"), rl("", "200Mi")),
      "maximum memory usage per Container is 100Mi, but limit is 200Mi",
    ],
    [
      "container without the limit a max needs",
      createLimitRange("Container", {}, rl("1", ""), {}, {}, {}),
      validPod("ctr-max-no-limit", 1, rl("500m", ""), {}),
      "maximum cpu usage per Container is 1.  No limit is specified",
    ],
    [
      "init container above max",
      createLimitRange("Container", {}, rl("", "100Mi"), {}, {}, {}),
      withInit(validPod("init-max", 1, rl("", "50Mi"), rl("", "50Mi")), rl("", "1Gi"), rl("", "1Gi")),
      "maximum memory usage per Container is 100Mi, but limit is 1Gi",
    ],
    [
      "pod sum below min",
      createLimitRange("Pod", rl("1", ""), {}, {}, {}, {}),
      validPod("pod-min", 2, rl("100m", ""), rl("200m", "")),
      "minimum cpu usage per Pod is 1, but request is 200m",
    ],
    [
      "pod sum above max",
      createLimitRange("Pod", {}, rl("", "100Mi"), {}, {}, {}),
      validPod("pod-max", 3, rl("", "50Mi"), rl("", "50Mi")),
      "maximum memory usage per Pod is 100Mi, but limit is 150Mi",
    ],
    [
      "limit/request ratio above the maximum",
      createLimitRange("Container", {}, {}, {}, {}, rl("", "1.5")),
      validPod("ctr-ratio", 1, rl("", "100Mi"), rl("", "200Mi")),
      "memory max limit to request ratio per Container is 1500m, but provided ratio is 2.000000",
    ],
    [
      "ratio without a request",
      createLimitRange("Container", {}, {}, {}, {}, rl("2", "")),
      validPod("ctr-ratio-no-request", 1, {}, rl("1", "")),
      "cpu max limit to request ratio per Container is 2, but no request is specified or request is 0",
    ],
    [
      "several violations are aggregated",
      createLimitRange("Container", {}, rl("500m", "500Mi"), {}, {}, {}),
      validPod("many", 1, rl("600m", "600Mi"), rl("600m", "600Mi")),
      "[maximum cpu usage per Container is 500m, but limit is 600m, maximum memory usage per Container is 500Mi, but limit is 600Mi]",
    ],
  ];
  for (const [name, lr, pod, message] of errors)
    it(`refuses: ${name}`, () => expect(limitRangeViolation([lr], "pods", pod)).toBe(message));

  it("TestPodLimitFuncApplyDefault: defaults are applied before the constraints are checked", () => {
    const lr = createLimitRange(
      "Container",
      rl("50m", "10Mi"),
      rl("1", "1Gi"),
      rl("500m", "500Mi"),
      rl("100m", "100Mi"),
      {},
    );
    const pod = validPod("defaulted", 1, {}, {});
    admitLimitRanges([lr], pod);
    expect(limitRangeViolation([lr], "pods", pod)).toBeUndefined();
    expect(resourcesOf(pod)).toEqual({ requests: rl("100m", "100Mi"), limits: rl("500m", "500Mi") });
  });
});

describe("LimitRanger: TestPersistentVolumeClaimLimitFunc", () => {
  const pvc = (storage?: string): KubeObject => ({
    metadata: { name: "claim", namespace: "test" },
    spec: { resources: storage === undefined ? {} : { requests: { storage } } },
  });
  const lr = limitRange({ type: "PersistentVolumeClaim", min: { storage: "1Gi" }, max: { storage: "10Gi" } });
  it("admits a claim within min and max", () =>
    expect(limitRangeViolation([lr], "persistentvolumeclaims", pvc("5Gi"))).toBeUndefined());
  it("refuses a claim below min", () =>
    expect(limitRangeViolation([lr], "persistentvolumeclaims", pvc("500Mi"))).toBe(
      "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi",
    ));
  it("refuses a claim above max", () =>
    expect(limitRangeViolation([lr], "persistentvolumeclaims", pvc("20Gi"))).toBe(
      "maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi",
    ));
  it("refuses a claim without a storage request", () =>
    expect(limitRangeViolation([lr], "persistentvolumeclaims", pvc())).toBe(
      "[minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is specified]",
    ));
});

describe("LimitRanger: utilerrors aggregate", () => {
  it("one message alone, duplicates once", () => {
    expect(aggregateMessage(["a"])).toBe("a");
    expect(aggregateMessage(["a", "a"])).toBe("a");
    expect(aggregateMessage(["a", "b"])).toBe("[a, b]");
  });
});

describe("LimitRanger: property", () => {
  const cpu = fc.integer({ min: 1, max: 4000 }).map((m) => `${m}m`);
  const mem = fc.integer({ min: 1, max: 4096 }).map((m) => `${m}Mi`);
  const list = fc.record({ cpu: fc.option(cpu, { nil: undefined }), memory: fc.option(mem, { nil: undefined }) });
  const clean = (l: { cpu?: string | undefined; memory?: string | undefined }): List =>
    Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) as List;

  it("never lowers or replaces an explicit value, and leaves no resource of the defaults unset", () => {
    fc.assert(
      fc.property(list, list, list, list, (req, lim, def, defReq) => {
        const lr = createLimitRange("Container", {}, {}, clean(def), clean(defReq), {});
        const pod = validPod("p", 1, clean(req), clean(lim));
        admitLimitRanges([lr], pod);
        const got = resourcesOf(pod);
        for (const [k, v] of Object.entries(clean(req))) expect(got.requests?.[k]).toBe(v);
        for (const [k, v] of Object.entries(clean(lim))) expect(got.limits?.[k]).toBe(v);
        for (const k of Object.keys(clean(defReq))) expect(got.requests?.[k]).toBeDefined();
        for (const k of Object.keys(clean(def))) expect(got.limits?.[k]).toBeDefined();
      }),
    );
  });
});

describe("LimitRanger through the engine (TestLimitRangerAdmitPod, TestLimitRangerIgnoresSubresource)", () => {
  const engine = pluginEngine;
  const LR: KubeObject = {
    metadata: { name: "limits" },
    spec: {
      limits: [
        {
          type: "Container",
          max: rl("500m", "500Mi"),
          default: rl("500m", "500Mi"),
          defaultRequest: rl("100m", "200Mi"),
        },
      ],
    },
  };
  const pod = (name: string, requests: List = {}, limits: List = {}): KubeObject => ({
    metadata: { name },
    spec: { containers: [container("pause", requests, limits)] },
  });

  it("TestLimitRangerAdmitPod: a new pod is defaulted and one over the max is a 403 that stores nothing", async () => {
    const e = engine();
    await e.create("limitranges", "default", LR);
    const created = await e.create("pods", "default", pod("defaulted"));
    expect(resourcesOf(created)).toMatchObject({ requests: rl("100m", "200Mi"), limits: rl("500m", "500Mi") });
    // SetDefaults_Pod: a limit without a request requests the limit before LimitRanger runs.
    const partial = await e.create("pods", "default", pod("partial", rl("", "150Mi"), rl("300m", "")));
    expect(resourcesOf(partial)).toMatchObject({ requests: rl("300m", "150Mi"), limits: rl("300m", "500Mi") });
    const s = await failure(e.create("pods", "default", pod("big", rl("600m", "600Mi"))));
    expect(s.code).toBe(403);
    expect(s.reason).toBe("Forbidden");
    expect(s.message).toBe(
      // The defaulted limits (500m, 500Mi) pass; the requests above them do not.
      'pods "big" is forbidden: [maximum cpu usage per Container is 500m, but request is 600m, maximum memory usage per Container is 500Mi, but request is 600Mi]',
    );
    expect(await failure(e.get("pods", "default", "big"))).toMatchObject({ code: 404 });
    // Other namespaces have their own LimitRanges (none here).
    await e.create("namespaces", "", { metadata: { name: "free" } });
    await e.create("pods", "free", pod("big", rl("600m", "600Mi")));
  });

  it("TestLimitRangerIgnoresSubresource: updates and subresource writes of pods are not limited", async () => {
    const e = engine();
    const created = await e.create("pods", "default", pod("before", rl("600m", "600Mi")));
    await e.create("limitranges", "default", LR);
    const labelled = { ...created, metadata: { ...created.metadata, labels: { a: "b" } } };
    const updated = await e.update("pods", "default", "before", labelled);
    expect(updated.metadata?.labels).toEqual({ a: "b" });
    const status = await e.update(
      "pods",
      "default",
      "before",
      { ...updated, status: { phase: "Running" } },
      {
        subresource: "status",
      },
    );
    expect((status.status as { phase?: string }).phase).toBe("Running");
  });

  it("admission.limitRanger false turns the plugin off (--disable-admission-plugins=LimitRanger)", async () => {
    const e = engine({ limitRanger: false });
    await e.create("limitranges", "default", LR);
    const created = await e.create("pods", "default", pod("free", rl("600m", "600Mi")));
    expect(created.metadata?.annotations).toBeUndefined();
  });
});
