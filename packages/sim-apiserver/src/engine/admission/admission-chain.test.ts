import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RequestContext } from "../request-context.js";
import { SimApiServer } from "../sim-apiserver.js";
import type { SimApiServerOptions } from "../sim-apiserver-options.js";
import { failure } from "../status-failure.test-util.js";

function engine(opts: SimApiServerOptions = {}) {
  return new SimApiServer({
    clock: new FakeClock(),
    rand: seededRand(4),
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
    ...opts,
  });
}

const deployment = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx:1.27" }] } },
    ...spec,
  },
});

const WIDGET_CRD: KubeObject = {
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", kind: "Widget" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  replicas: { type: "integer", minimum: 0, maximum: 10, default: 1 },
                  size: { type: "string", enum: ["S", "M", "L"] },
                },
              },
            },
          },
        },
      },
    ],
  },
};

describe("Admission: fieldValidation (FieldValidation e2e tests, re-implemented in-process)", () => {
  const withUnknown = (): KubeObject => ({
    metadata: { name: "my-dep", unknownMeta: "foo" },
    spec: { ...(deployment("my-dep").spec as object), unknownField: "foo" },
  });

  it("should detect unknown and duplicate fields of a typed object: Strict is a 400 naming both", async () => {
    const e = engine();
    const rv = e.currentResourceVersion;
    const s = await failure(
      e.create("deployments.apps", "default", withUnknown(), {
        fieldValidation: "Strict",
        duplicateFields: ["spec.replicas"],
      }),
    );
    expect([s.code, s.reason, s.message]).toEqual([
      400,
      "BadRequest",
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "metadata.unknownMeta", unknown field "spec.unknownField", duplicate field "spec.replicas"',
    ]);
    expect(e.currentResourceVersion).toBe(rv);
  });

  it("Warn (the default) stores the object without the unknown fields and says so in warnings", async () => {
    const e = engine();
    const ctx: RequestContext = { warnings: [] };
    const stored = await e.create("deployments.apps", "default", withUnknown(), ctx);
    expect(ctx.warnings).toEqual(['unknown field "metadata.unknownMeta"', 'unknown field "spec.unknownField"']);
    expect(stored.metadata).not.toHaveProperty("unknownMeta");
    expect(stored.spec).not.toHaveProperty("unknownField");
    const got = await e.get("deployments.apps", "default", "my-dep", {});
    expect(got.spec).not.toHaveProperty("unknownField");
  });

  it("Ignore drops them silently; an unknown directive is 422", async () => {
    const e = engine();
    const ctx: RequestContext = { warnings: [], fieldValidation: "Ignore" };
    const stored = await e.create("deployments.apps", "default", withUnknown(), ctx);
    expect(ctx.warnings).toEqual([]);
    expect(stored.spec).not.toHaveProperty("unknownField");
    const s = await failure(
      e.create("configmaps", "default", { metadata: { name: "x" } }, { fieldValidation: "Loose" }),
    );
    expect([s.code, s.message]).toEqual([
      422,
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"',
    ]);
  });

  it("a value of the wrong type in a built-in is Go's decode error (400), whatever the directive", async () => {
    const s = await failure(
      engine().create("deployments.apps", "default", deployment("d", { replicas: "three" }), {
        fieldValidation: "Ignore",
      }),
    );
    expect([s.code, s.message]).toEqual([
      400,
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    ]);
  });

  it("patches are checked on the patched object: a merge patch adding an unknown field under Strict is a 400", async () => {
    const e = engine();
    await e.create("configmaps", "default", { metadata: { name: "c" }, data: { a: "1" } });
    const s = await failure(
      e.patch("configmaps", "default", "c", "application/merge-patch+json", '{"spec":{"x":1}}', {
        fieldValidation: "Strict",
      }),
    );
    expect(s.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"',
    );
  });

  it("kube-version 1.22 (before ServerSideFieldValidation) drops unknown fields silently and ignores the parameter", async () => {
    const e = engine({ kubeVersion: "1.22" });
    const ctx: RequestContext = { warnings: [], fieldValidation: "Strict" };
    const stored = await e.create("deployments.apps", "default", withUnknown(), ctx);
    expect([ctx.warnings, "unknownField" in (stored.spec as object)]).toEqual([[], false]);
  });
});

describe("Admission: defaults (SetDefaults_*)", () => {
  it("a Pod gets the pod and container defaults", async () => {
    const pod = await engine().create("pods", "default", {
      metadata: { name: "p" },
      spec: {
        containers: [
          { name: "c", image: "nginx", ports: [{ containerPort: 80 }] },
          { name: "d", image: "busybox:1.36" },
        ],
      },
    });
    expect(pod.spec).toMatchObject({
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      terminationGracePeriodSeconds: 30,
      schedulerName: "default-scheduler",
      securityContext: {},
      serviceAccountName: "default",
      containers: [
        {
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          imagePullPolicy: "Always",
          ports: [{ containerPort: 80, protocol: "TCP" }],
        },
        { imagePullPolicy: "IfNotPresent" },
      ],
    });
  });

  // pkg/apis/batch/v1/defaults_test.go TestSetDefaultJob: its cases, through the engine's create.
  const jobTemplate = {
    metadata: { labels: { app: "x" } },
    spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] },
  };
  it.each([
    [
      "Both Completions and Parallelism are nil",
      {},
      { completions: 1, parallelism: 1, backoffLimit: 6, completionMode: "NonIndexed" },
    ],
    ["Completions only", { completions: 11 }, { completions: 11, parallelism: 1 }],
    ["Parallelism only (work queue: completions stay unset)", { parallelism: 11 }, { parallelism: 11 }],
    ["parallelism and completions set", { completions: 3, parallelism: 2, backoffLimit: 0 }, { backoffLimit: 0 }],
    [
      "BackoffLimitPerIndex specified, but no BackoffLimit -> default BackoffLimit to max int32",
      { completions: 2, completionMode: "Indexed", backoffLimitPerIndex: 1 },
      { backoffLimit: 2147483647, completionMode: "Indexed" },
    ],
    [
      "PodFailurePolicy: empty onPodConditions status defaults to True, podReplacementPolicy to Failed",
      {
        podFailurePolicy: {
          rules: [
            { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget" }, { type: "Ready", status: "False" }] },
          ],
        },
      },
      {
        podReplacementPolicy: "Failed",
        podFailurePolicy: {
          rules: [
            {
              action: "Ignore",
              onPodConditions: [
                { type: "DisruptionTarget", status: "True" },
                { type: "Ready", status: "False" },
              ],
            },
          ],
        },
      },
    ],
    ["a given podReplacementPolicy is kept", { podReplacementPolicy: "Failed" }, { podReplacementPolicy: "Failed" }],
  ] as const)("TestSetDefaultJob: %s", async (_name, given, want) => {
    const job = await engine().create("jobs.batch", "default", {
      metadata: { name: "j" },
      spec: { ...given, template: jobTemplate },
    });
    const spec = job.spec as Record<string, unknown>;
    expect(spec).toMatchObject({
      suspend: false,
      manualSelector: false,
      completionMode: "NonIndexed",
      backoffLimit: 6,
      podReplacementPolicy: "TerminatingOrFailed",
      ...want,
    });
    if (!("completions" in given) && "parallelism" in given) expect(spec.completions).toBeUndefined();
    // The Job's labels default to the template's as the user wrote them (before the selector's labels are added).
    expect(job.metadata?.labels).toEqual({ app: "x" });
    expect((spec.template as { spec: Record<string, unknown> }).spec).toMatchObject({
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
    });
  });

  it("TestSetDefaultJob: labels of the Job itself are kept", async () => {
    const job = await engine().create("jobs.batch", "default", {
      metadata: { name: "j", labels: { mine: "y" } },
      spec: { template: jobTemplate },
    });
    expect(job.metadata?.labels).toEqual({ mine: "y" });
  });

  it("a Deployment gets replicas, strategy, revisionHistoryLimit, progressDeadlineSeconds and template defaults", async () => {
    const d = await engine().create("deployments.apps", "default", deployment("d"));
    expect(d.spec).toMatchObject({
      replicas: 1,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: { spec: { restartPolicy: "Always", containers: [{ imagePullPolicy: "IfNotPresent" }] } },
    });
  });

  it("a CronJob gets concurrencyPolicy, suspend, the history limits and its job template's pod defaults", async () => {
    const cj = await engine().create("cronjobs.batch", "default", {
      metadata: { name: "cj" },
      spec: {
        schedule: "*/1 * * * *",
        jobTemplate: {
          spec: { template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "busybox" }] } } },
        },
      },
    });
    expect(cj.spec).toEqual({
      schedule: "*/1 * * * *",
      concurrencyPolicy: "Allow",
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
      jobTemplate: {
        spec: {
          template: {
            spec: expect.objectContaining({
              restartPolicy: "OnFailure",
              dnsPolicy: "ClusterFirst",
              containers: [expect.objectContaining({ imagePullPolicy: "Always" })],
            }),
          },
        },
      },
    });
    // What the client set is kept.
    const kept = await engine().create("cronjobs.batch", "default", {
      metadata: { name: "cj2" },
      spec: {
        schedule: "@hourly",
        suspend: true,
        concurrencyPolicy: "Forbid",
        successfulJobsHistoryLimit: 0,
        jobTemplate: {
          spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "b" }] } } },
        },
      },
    });
    expect(kept.spec).toMatchObject({
      suspend: true,
      concurrencyPolicy: "Forbid",
      successfulJobsHistoryLimit: 0,
      failedJobsHistoryLimit: 1,
    });
  });

  it("a Service gets type, sessionAffinity, a cluster IP from 10.96.0.0/12 that it keeps, targetPort; the IP is immutable", async () => {
    const e = engine();
    const a = await e.create("services", "default", { metadata: { name: "a" }, spec: { ports: [{ port: 80 }] } });
    const b = await e.create("services", "default", { metadata: { name: "b" }, spec: { ports: [{ port: 80 }] } });
    expect(a.spec).toMatchObject({
      type: "ClusterIP",
      sessionAffinity: "None",
      clusterIP: "10.96.0.10",
      clusterIPs: ["10.96.0.10"],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
    });
    expect((b.spec as { clusterIP: string }).clusterIP).toBe("10.96.0.11");
    // An update without the IP keeps it (the REST copies allocated values); changing it is 422.
    const u = await e.update("services", "default", "a", { metadata: { name: "a" }, spec: { ports: [{ port: 81 }] } });
    expect((u.spec as { clusterIP: string }).clusterIP).toBe("10.96.0.10");
    const s = await failure(
      e.update("services", "default", "a", {
        metadata: { name: "a" },
        spec: { clusterIP: "10.96.0.99", ports: [{ port: 81 }] },
      }),
    );
    expect(s.message).toBe(
      'Service "a" is invalid: spec.clusterIPs[0]: Invalid value: "10.96.0.99": may not change once set',
    );
  });
});

describe("Admission: validation of built-ins (the issue's reproductions)", () => {
  it("a Deployment {spec:{replicas:-4}} with no selector or template is 422 with a cause per field", async () => {
    const s = await failure(
      engine().create("deployments.apps", "default", { metadata: { name: "d" }, spec: { replicas: -4 } }),
    );
    expect(s.code).toBe(422);
    expect(s.details?.causes).toEqual([
      {
        reason: "FieldValueInvalid",
        message: "Invalid value: -4: must be greater than or equal to 0",
        field: "spec.replicas",
      },
      { reason: "FieldValueRequired", message: "Required value", field: "spec.selector" },
      { reason: "FieldValueRequired", message: "Required value", field: "spec.template.spec.containers" },
    ]);
    expect(s.details).toMatchObject({ name: "d", group: "apps", kind: "Deployment" });
  });

  it('ConfigMap keys "" and "a b" are refused; an immutable ConfigMap refuses data changes and true → false', async () => {
    const e = engine();
    const s = await failure(e.create("configmaps", "default", { metadata: { name: "x" }, data: { "": "v" } }));
    expect(s.message).toBe(
      `ConfigMap "x" is invalid: data[]: Invalid value: "": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    );
    await e.create("configmaps", "default", { metadata: { name: "frozen" }, data: { k: "v" }, immutable: true });
    const data = await failure(
      e.update("configmaps", "default", "frozen", { metadata: { name: "frozen" }, data: { k: "w" }, immutable: true }),
    );
    expect(data.message).toBe(
      'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
    const flag = await failure(
      e.patch("configmaps", "default", "frozen", "application/merge-patch+json", '{"immutable":false}'),
    );
    expect(flag.message).toBe(
      'ConfigMap "frozen" is invalid: immutable: Forbidden: field is immutable when `immutable` is set',
    );
  });

  it("a Deployment's selector is immutable", async () => {
    const e = engine();
    await e.create("deployments.apps", "default", deployment("d"));
    const next = deployment("d");
    (next.spec as { selector: unknown }).selector = { matchLabels: { app: "d", tier: "x" } };
    (next.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels.tier = "x";
    const s = await failure(e.update("deployments.apps", "default", "d", next));
    expect(s.details?.causes?.map((c) => c.field)).toEqual(["spec.selector"]);
  });

  it("admission: false stores what it is given", async () => {
    const e = engine({ admission: false });
    const d = await e.create("deployments.apps", "default", {
      metadata: { name: "d" },
      spec: { replicas: -4, extra: 1 },
    });
    expect(d.spec).toEqual({ replicas: -4, extra: 1 });
  });
});

describe("Admission: custom resources (the issue's reproductions)", () => {
  it('replicas: "three" and replicas: 20 against integer/maximum 10 are 422; defaults apply; unknown fields are pruned', async () => {
    const e = engine();
    await e.create("customresourcedefinitions.apiextensions.k8s.io", "", WIDGET_CRD);
    const cr = (spec: Record<string, unknown>, name = "w"): KubeObject => ({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name },
      spec,
    });
    const three = await failure(e.create("widgets.example.com", "default", cr({ replicas: "three" })));
    expect([three.code, three.message]).toEqual([
      422,
      'Widget.example.com "w" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
    expect(three.details?.causes).toEqual([
      {
        reason: "FieldValueTypeInvalid",
        message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        field: "spec.replicas",
      },
    ]);
    const twenty = await failure(e.create("widgets.example.com", "default", cr({ replicas: 20 })));
    expect(twenty.message).toBe(
      'Widget.example.com "w" is invalid: spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10',
    );
    const strict = await failure(
      e.create("widgets.example.com", "default", cr({ size: "S", color: "red" }), { fieldValidation: "Strict" }),
    );
    expect(strict.message).toBe(
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.color"',
    );
    const ok = await e.create("widgets.example.com", "default", cr({ size: "S", color: "red" }));
    expect(ok.spec).toEqual({ size: "S", replicas: 1 });
  });
});

describe("Admission: x-kubernetes-validations (CEL) through the engine", () => {
  it("rules with self and oldSelf reject creates and updates with the rule's message; nothing stored", async () => {
    const e = engine();
    const crd = structuredClone(WIDGET_CRD);
    const spec = (
      crd.spec as {
        versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } } }>;
      }
    ).versions[0]!.schema.openAPIV3Schema.properties.spec;
    spec["x-kubernetes-validations"] = [
      { rule: "self.size != 'L' || self.replicas >= 3", message: "size L needs at least 3 replicas" },
      {
        rule: "self.replicas >= oldSelf.replicas",
        messageExpression: "'replicas may not go down from ' + string(oldSelf.replicas)",
      },
    ];
    await e.create("customresourcedefinitions.apiextensions.k8s.io", "", crd);
    const cr = (s: Record<string, unknown>): KubeObject => ({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec: s,
    });
    const bad = await failure(e.create("widgets.example.com", "default", cr({ size: "L", replicas: 2 })));
    expect([bad.code, bad.message]).toEqual([
      422,
      'Widget.example.com "w" is invalid: spec: Invalid value: "object": size L needs at least 3 replicas',
    ]);
    await e.create("widgets.example.com", "default", cr({ size: "M", replicas: 5 }));
    const down = await failure(e.update("widgets.example.com", "default", "w", cr({ size: "M", replicas: 4 })));
    expect(down.message).toBe(
      'Widget.example.com "w" is invalid: spec: Invalid value: "object": replicas may not go down from 5',
    );
    expect(((await e.get("widgets.example.com", "default", "w", {})).spec as { replicas: number }).replicas).toBe(5);
  });
});

/** An invalid object of some served kind, and the field its 422 must name. */
interface Invalid {
  readonly resource: string;
  readonly object: KubeObject;
  readonly field: string;
}

const invalidArb: fc.Arbitrary<Invalid> = fc.oneof(
  fc.constantFrom("", "a b", "..x", "a*b", "x/y").map((key) => ({
    resource: "configmaps",
    object: { metadata: { name: "cm" }, data: { [key]: "v" } },
    field: `data[${key}]`,
  })),
  fc.constantFrom("", "a b", "é").map((key) => ({
    resource: "secrets",
    object: { metadata: { name: "s" }, data: { [key]: "AA==" } },
    field: `data[${key}]`,
  })),
  fc.integer({ min: -1000, max: -1 }).map((replicas) => ({
    resource: "deployments.apps",
    object: deployment("d", { replicas }),
    field: "spec.replicas",
  })),
  fc.constantFrom("selector", "template").map((drop) => {
    const d = deployment("d");
    delete (d.spec as Record<string, unknown>)[drop];
    return {
      resource: "deployments.apps",
      object: d,
      field: drop === "selector" ? "spec.selector" : "spec.template.spec.containers",
    };
  }),
  fc
    .string({ minLength: 1, maxLength: 8 })
    .filter((s) => s !== "d")
    .map((label) => ({
      resource: "statefulsets.apps",
      object: {
        metadata: { name: "st" },
        spec: {
          selector: { matchLabels: { app: "d" } },
          template: {
            metadata: { labels: { app: label.replace(/[^a-z]/g, "") || "z" } },
            spec: { containers: [{ name: "c", image: "i" }] },
          },
        },
      },
      field: "spec.template.metadata.labels",
    })),
  fc
    .constantFrom(
      { spec: {}, field: "spec.containers" },
      { spec: { containers: [{ name: "c" }] }, field: "spec.containers[0].image" },
      { spec: { containers: [{ name: "c", image: "i" }], restartPolicy: "Sometimes" }, field: "spec.restartPolicy" },
      {
        spec: {
          containers: [
            { name: "c", image: "i" },
            { name: "c", image: "j" },
          ],
        },
        field: "spec.containers[1].name",
      },
    )
    .map(({ spec, field }) => ({ resource: "pods", object: { metadata: { name: "p" }, spec }, field })),
  fc.oneof(fc.integer({ min: -5, max: 0 }), fc.integer({ min: 65536, max: 100000 })).map((port) => ({
    resource: "services",
    object: { metadata: { name: "svc" }, spec: { ports: [{ port }] } },
    field: "spec.ports[0].port",
  })),
  fc.integer({ min: -100, max: 0 }).map((d) => ({
    resource: "leases.coordination.k8s.io",
    object: { metadata: { name: "l" }, spec: { leaseDurationSeconds: d } },
    field: "spec.leaseDurationSeconds",
  })),
  fc.oneof(fc.integer({ min: 11, max: 1000 }), fc.integer({ min: -1000, max: -1 })).map((replicas) => ({
    resource: "widgets.example.com",
    object: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { replicas } },
    field: "spec.replicas",
  })),
  fc
    .string({ minLength: 1, maxLength: 4 })
    .filter((s) => !["S", "M", "L"].includes(s))
    .map((size) => ({
      resource: "widgets.example.com",
      object: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size } },
      field: "spec.size",
    })),
);

describe("Admission: bad input as a property", () => {
  it("generated invalid objects are rejected with a cause naming the field; storage, resourceVersion and watch history are untouched", async () => {
    const e = engine();
    await e.create("customresourcedefinitions.apiextensions.k8s.io", "", WIDGET_CRD);
    let marker = 0;
    await fc.assert(
      fc.asyncProperty(invalidArb, fc.boolean(), async (bad, update) => {
        const rv = e.currentResourceVersion;
        const before = JSON.stringify((await e.list(bad.resource, "default")).items);
        const attempt = update
          ? e.update(bad.resource, "default", String(bad.object.metadata?.name), bad.object)
          : e.create(bad.resource, "default", bad.object);
        const s = await failure(attempt);
        if (update && s.code === 404) return; // nothing to update: also nothing written
        expect(s.code).toBe(422);
        expect(s.details?.causes?.map((c) => c.field)).toContain(bad.field);
        expect(e.currentResourceVersion).toBe(rv);
        expect(JSON.stringify((await e.list(bad.resource, "default")).items)).toBe(before);
        // The watch history from before the attempt holds nothing but the next real write.
        const w = await e.watch("configmaps", "default", { resourceVersion: String(rv), timeoutSeconds: 60 });
        const name = `marker-${marker++}`;
        await e.create("configmaps", "default", { metadata: { name } });
        const ev = (await w.next()).value as WatchEvent;
        w.stop();
        expect([ev.type, (ev.object as KubeObject).metadata?.name]).toEqual(["ADDED", name]);
      }),
      { numRuns: 60 },
    );
  });

  it("invalid updates of stored objects are rejected and leave them as they were", async () => {
    const e = engine();
    const stored = await e.create("deployments.apps", "default", deployment("d"));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -50, max: -1 }), async (replicas) => {
        const s = await failure(e.update("deployments.apps", "default", "d", deployment("d", { replicas })));
        expect(s.details?.causes?.map((c) => c.field)).toEqual(["spec.replicas"]);
        expect(await e.get("deployments.apps", "default", "d", {})).toEqual(stored);
      }),
      { numRuns: 20 },
    );
  });
});
