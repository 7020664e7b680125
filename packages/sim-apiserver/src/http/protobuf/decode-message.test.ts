// Decoding with the schema tables, from bytes built by hand with the field numbers of upstream's generated.proto
// (so a wrong number in the table fails here, not only against kubectl), plus a fast-check round trip.
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { type DecodeContext, decodeMessageBytes } from "./decode-message.js";
import { type FieldSchema, kindSchema, messageSchema } from "./schema.js";
import { SCHEMA_ROOTS } from "./schema-table.js";
import { ProtobufDecodeError } from "./wire-reader.js";
import { bfield, encodeMessage, mapEntry, mfield, sfield, tag, varint, vfield } from "./wire-writer.test-util.js";

function decode(kind: string, bytes: number[], group = "", base = 0) {
  const ctx: DecodeContext = { unknownFields: [] };
  const schema = kindSchema(group, "v1", kind);
  if (schema === undefined) throw new Error(`no schema for ${kind}`);
  const object = decodeMessageBytes(Uint8Array.from(bytes), base, schema, ctx);
  return { object, unknown: ctx.unknownFields };
}

function decodeError(kind: string, bytes: number[], group = ""): ProtobufDecodeError {
  try {
    decode(kind, bytes, group);
  } catch (err) {
    if (err instanceof ProtobufDecodeError) return err;
    throw err;
  }
  throw new Error("expected a ProtobufDecodeError");
}

// ObjectMeta: name 1, generateName 2, namespace 3, uid 5, resourceVersion 6, generation 7, creationTimestamp 8,
// deletionGracePeriodSeconds 10, labels 11, annotations 12, ownerReferences 13, finalizers 14.
const meta = (...parts: number[][]) => mfield(1, ...parts);

describe("decodeMessage", () => {
  it("ConfigMap: metadata, data, binaryData (bytes → base64), immutable", () => {
    const { object, unknown } = decode("ConfigMap", [
      ...meta(sfield(1, "x"), sfield(3, "default"), mapEntry(11, "app", "web"), mapEntry(12, "note", "n"), mfield(8)),
      ...mapEntry(2, "a", "b"),
      ...mapEntry(2, "c", ""),
      ...mfield(3, sfield(1, "bin"), bfield(2, [0, 1, 255])),
      ...vfield(4, true),
    ]);
    expect(object).toEqual({
      metadata: {
        name: "x",
        namespace: "default",
        labels: { app: "web" },
        annotations: { note: "n" },
        creationTimestamp: null,
      },
      data: { a: "b", c: "" },
      binaryData: { bin: "AAH/" },
      immutable: true,
    });
    expect(unknown).toEqual([]);
  });

  it("an int64 beyond ±(2^53 − 1) is refused naming the field, never rounded", () => {
    const err = decodeError("ConfigMap", [...meta(sfield(1, "x"), vfield(7, 2n ** 53n + 1n))]);
    expect(err.path).toBe("metadata.generation");
    expect(err.message).toContain("int64 value 9007199254740993 cannot be represented exactly");
    // The largest exact value and a negative one decode as themselves.
    const ok = decode("ConfigMap", [...meta(sfield(1, "x"), vfield(7, Number.MAX_SAFE_INTEGER), vfield(10, -30))]);
    expect(ok.object.metadata).toEqual({
      name: "x",
      generation: Number.MAX_SAFE_INTEGER,
      deletionGracePeriodSeconds: -30,
    });
  });

  it("Secret: data is base64, type and stringData are strings", () => {
    const { object } = decode("Secret", [
      ...meta(sfield(1, "s")),
      ...mfield(2, sfield(1, "k"), bfield(2, Buffer.from("v"))),
      ...sfield(3, "Opaque"),
      ...mapEntry(4, "plain", "text"),
    ]);
    expect(object).toEqual({
      metadata: { name: "s" },
      data: { k: "dg==" },
      type: "Opaque",
      stringData: { plain: "text" },
    });
  });

  it("zero scalars are dropped unless the Go field is a pointer or not omitempty; Go's zero time is null", () => {
    // Deployment.spec: replicas 1 (*int32), selector 2, template 3, strategy 4, minReadySeconds 5, paused 7.
    const { object } = decode(
      "Deployment",
      [
        ...meta(sfield(1, "d"), sfield(2, ""), vfield(7, 0), mfield(8, vfield(1, -62135596800n))),
        ...mfield(2, vfield(1, 0), vfield(5, 0), vfield(7, false), mfield(4)),
      ],
      "apps",
    );
    expect(object).toEqual({ metadata: { name: "d", creationTimestamp: null }, spec: { replicas: 0, strategy: {} } });
  });

  it("Deployment to the depth kubectl create deployment fills, with IntOrString, Quantity and Time", () => {
    // PodTemplateSpec: metadata 1, spec 2. PodSpec: containers 2, restartPolicy 3, terminationGracePeriodSeconds 4.
    // Container: name 1, image 2, command 3, ports 6 (containerPort 3), resources 8 (limits 1, requests 2),
    // stdin 16. DeploymentStrategy: type 1, rollingUpdate 2 (maxUnavailable 1, maxSurge 2).
    const container = mfield(
      2,
      sfield(1, "nginx"),
      sfield(2, "nginx:1.27"),
      sfield(3, "nginx"),
      sfield(3, "-g"),
      mfield(6, vfield(3, 80), sfield(4, "TCP")),
      mfield(8, mfield(1, sfield(1, "cpu"), mfield(2, sfield(1, "500m"))), mfield(2, sfield(1, "memory"), mfield(2))),
      vfield(16, false),
    );
    const { object } = decode(
      "Deployment",
      [
        ...meta(sfield(1, "d"), mfield(8, vfield(1, 1700000000), vfield(2, 123))),
        ...mfield(
          2,
          vfield(1, 3),
          mfield(2, mapEntry(1, "app", "d"), mfield(2, sfield(1, "tier"), sfield(2, "In"), sfield(3, "a"))),
          mfield(3, mfield(1, mapEntry(11, "app", "d")), mfield(2, container, sfield(3, "Always"), vfield(4, 30))),
          mfield(
            4,
            sfield(1, "RollingUpdate"),
            mfield(2, mfield(1, vfield(1, 0), vfield(2, 1)), mfield(2, vfield(1, 1), sfield(3, "25%"))),
          ),
        ),
        ...mfield(3), // an empty status (Go always writes the non-pointer struct)
      ],
      "apps",
    );
    expect(object).toEqual({
      metadata: { name: "d", creationTimestamp: "2023-11-14T22:13:20Z" },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: "d" }, matchExpressions: [{ key: "tier", operator: "In", values: ["a"] }] },
        template: {
          metadata: { labels: { app: "d" } },
          spec: {
            containers: [
              {
                name: "nginx",
                image: "nginx:1.27",
                command: ["nginx", "-g"],
                ports: [{ containerPort: 80, protocol: "TCP" }],
                resources: { limits: { cpu: "500m" }, requests: { memory: "0" } },
              },
            ],
            restartPolicy: "Always",
            terminationGracePeriodSeconds: 30,
          },
        },
        strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: "25%" } },
      },
      status: {},
    });
  });

  it("Job: parallelism/backoffLimit pointers, negative int32, ownerReferences and finalizers", () => {
    // JobSpec: parallelism 1, completions 2, backoffLimit 7, template 6. OwnerReference: kind 1, name 3, uid 4,
    // apiVersion 5, controller 6.
    const { object } = decode(
      "Job",
      [
        ...meta(
          sfield(1, "j"),
          mfield(13, sfield(1, "CronJob"), sfield(3, "c"), sfield(4, "u-1"), sfield(5, "batch/v1"), vfield(6, true)),
          sfield(14, "example.com/f"),
          vfield(10, -1),
        ),
        ...mfield(2, vfield(1, 0), vfield(7, 6), mfield(6, mfield(2, sfield(3, "Never")))),
      ],
      "batch",
    );
    expect(object).toEqual({
      metadata: {
        name: "j",
        ownerReferences: [{ kind: "CronJob", name: "c", uid: "u-1", apiVersion: "batch/v1", controller: true }],
        finalizers: ["example.com/f"],
        deletionGracePeriodSeconds: -1,
      },
      spec: { parallelism: 0, backoffLimit: 6, template: { spec: { restartPolicy: "Never" } } },
    });
  });

  // One body per root added for `kubectl create` (issue #21), built from the field numbers of upstream's
  // generated.proto at v0.34.10 (batch, rbac, policy, scheduling, networking, coordination, core, apps), each with
  // the fields kubectl create fills.
  const labelSelector = (k: string, v: string) => mapEntry(1, k, v);
  const newRoots: { kind: string; group: string; bytes: number[]; want: unknown }[] = [
    {
      kind: "CronJob",
      group: "batch",
      // spec 2: schedule 1, suspend 4 (pointer: false kept), jobTemplate 5 → spec 2 → template 6 → spec 2
      bytes: [
        ...meta(sfield(1, "cj1")),
        ...mfield(
          2,
          sfield(1, "*/1 * * * *"),
          vfield(4, false),
          mfield(
            5,
            meta(sfield(1, "cj1")),
            mfield(2, mfield(6, mfield(2, mfield(2, sfield(1, "c"), sfield(2, "busybox")), sfield(3, "OnFailure")))),
          ),
          sfield(8, "Etc/UTC"),
        ),
      ],
      want: {
        metadata: { name: "cj1" },
        spec: {
          schedule: "*/1 * * * *",
          suspend: false,
          jobTemplate: {
            metadata: { name: "cj1" },
            spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" } } },
          },
          timeZone: "Etc/UTC",
        },
      },
    },
    {
      kind: "ClusterRole",
      group: "rbac.authorization.k8s.io",
      // rules 2: verbs 1, apiGroups 2, resources 3, resourceNames 4; aggregationRule 3 → clusterRoleSelectors 1
      bytes: [
        ...meta(sfield(1, "cr")),
        ...mfield(2, sfield(1, "get"), sfield(1, "list"), sfield(2, ""), sfield(3, "pods"), sfield(4, "p1")),
        ...mfield(2, sfield(1, "get"), sfield(5, "/healthz")),
        ...mfield(3, mfield(1, labelSelector("agg", "yes"))),
      ],
      want: {
        metadata: { name: "cr" },
        rules: [
          { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"], resourceNames: ["p1"] },
          { verbs: ["get"], nonResourceURLs: ["/healthz"] },
        ],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: "yes" } }] },
      },
    },
    {
      kind: "ClusterRoleBinding",
      group: "rbac.authorization.k8s.io",
      // subjects 2: kind 1, apiGroup 2, name 3, namespace 4; roleRef 3: apiGroup 1, kind 2, name 3
      bytes: [
        ...meta(sfield(1, "crb")),
        ...mfield(2, sfield(1, "ServiceAccount"), sfield(3, "sa"), sfield(4, "default")),
        ...mfield(3, sfield(1, "rbac.authorization.k8s.io"), sfield(2, "ClusterRole"), sfield(3, "cr")),
      ],
      want: {
        metadata: { name: "crb" },
        subjects: [{ kind: "ServiceAccount", name: "sa", namespace: "default" }],
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cr" },
      },
    },
    {
      kind: "Role",
      group: "rbac.authorization.k8s.io",
      bytes: [...meta(sfield(1, "r"), sfield(3, "default")), ...mfield(2, sfield(1, "watch"), sfield(3, "configmaps"))],
      want: { metadata: { name: "r", namespace: "default" }, rules: [{ verbs: ["watch"], resources: ["configmaps"] }] },
    },
    {
      kind: "RoleBinding",
      group: "rbac.authorization.k8s.io",
      bytes: [
        ...meta(sfield(1, "rb")),
        ...mfield(2, sfield(1, "User"), sfield(2, "rbac.authorization.k8s.io"), sfield(3, "alice")),
        ...mfield(3, sfield(1, "rbac.authorization.k8s.io"), sfield(2, "Role"), sfield(3, "r")),
      ],
      want: {
        metadata: { name: "rb" },
        subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" }],
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
      },
    },
    {
      kind: "PodDisruptionBudget",
      group: "policy",
      // spec 2: minAvailable 1 (IntOrString), selector 2, maxUnavailable 3, unhealthyPodEvictionPolicy 4
      bytes: [
        ...meta(sfield(1, "pdb")),
        ...mfield(2, mfield(1, vfield(1, 1), sfield(3, "50%")), mfield(2, labelSelector("app", "w"))),
      ],
      want: { metadata: { name: "pdb" }, spec: { minAvailable: "50%", selector: { matchLabels: { app: "w" } } } },
    },
    {
      kind: "PriorityClass",
      group: "scheduling.k8s.io",
      // value 2 (no omitempty: 0 kept), globalDefault 3, description 4, preemptionPolicy 5
      bytes: [...meta(sfield(1, "pc")), ...vfield(2, 0), ...vfield(3, true), ...sfield(4, "d"), ...sfield(5, "Never")],
      want: { metadata: { name: "pc" }, value: 0, globalDefault: true, description: "d", preemptionPolicy: "Never" },
    },
    {
      kind: "ResourceQuota",
      group: "",
      // spec 2: hard 1 (map of Quantity), scopes 2
      bytes: [
        ...meta(sfield(1, "q")),
        ...mfield(2, mfield(1, sfield(1, "pods"), mfield(2, sfield(1, "10"))), sfield(2, "BestEffort")),
      ],
      want: { metadata: { name: "q" }, spec: { hard: { pods: "10" }, scopes: ["BestEffort"] } },
    },
    {
      kind: "Ingress",
      group: "networking.k8s.io",
      // spec 2: rules 3 → host 1, IngressRuleValue 2 (inlined) → http 1 → paths 1 → path 1, backend 2, pathType 3;
      // backend → service 4 → name 1, port 2 → number 2; ingressClassName 4
      bytes: [
        ...meta(sfield(1, "ing")),
        ...mfield(
          2,
          mfield(
            3,
            sfield(1, "foo.com"),
            mfield(
              2,
              mfield(
                1,
                mfield(
                  1,
                  sfield(1, "/bar"),
                  mfield(2, mfield(4, sfield(1, "svc1"), mfield(2, vfield(2, 8080)))),
                  sfield(3, "Exact"),
                ),
              ),
            ),
          ),
          sfield(4, "nginx"),
        ),
      ],
      want: {
        metadata: { name: "ing" },
        spec: {
          rules: [
            {
              host: "foo.com",
              http: {
                paths: [
                  { path: "/bar", backend: { service: { name: "svc1", port: { number: 8080 } } }, pathType: "Exact" },
                ],
              },
            },
          ],
          ingressClassName: "nginx",
        },
      },
    },
    {
      kind: "StatefulSet",
      group: "apps",
      // spec 2: replicas 1, selector 2, serviceName 5
      bytes: [
        ...meta(sfield(1, "ss")),
        ...mfield(2, vfield(1, 3), mfield(2, labelSelector("app", "s")), sfield(5, "svc")),
      ],
      want: {
        metadata: { name: "ss" },
        spec: { replicas: 3, selector: { matchLabels: { app: "s" } }, serviceName: "svc" },
      },
    },
    {
      kind: "ReplicaSet",
      group: "apps",
      bytes: [...meta(sfield(1, "rs")), ...mfield(2, vfield(1, 0), vfield(4, 5))],
      want: { metadata: { name: "rs" }, spec: { replicas: 0, minReadySeconds: 5 } },
    },
    {
      kind: "DaemonSet",
      group: "apps",
      // spec 2: updateStrategy 3 → type 1, rollingUpdate 2 → maxUnavailable 1; revisionHistoryLimit 6
      bytes: [
        ...meta(sfield(1, "ds")),
        ...mfield(
          2,
          mfield(3, sfield(1, "RollingUpdate"), mfield(2, mfield(1, vfield(1, 0), vfield(2, 1)))),
          vfield(6, 10),
        ),
      ],
      want: {
        metadata: { name: "ds" },
        spec: {
          updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
          revisionHistoryLimit: 10,
        },
      },
    },
    {
      kind: "Lease",
      group: "coordination.k8s.io",
      // spec 2: holderIdentity 1, leaseDurationSeconds 2, acquireTime 3 and renewTime 4 (MicroTime), leaseTransitions 5
      bytes: [
        ...meta(sfield(1, "l")),
        ...mfield(
          2,
          sfield(1, "me"),
          vfield(2, 15),
          mfield(3, vfield(1, 1_700_000_000), vfield(2, 123_456_789)),
          mfield(4, vfield(1, 1_700_000_001)),
          vfield(5, 2),
        ),
      ],
      want: {
        metadata: { name: "l" },
        spec: {
          holderIdentity: "me",
          leaseDurationSeconds: 15,
          acquireTime: "2023-11-14T22:13:20.123456Z",
          renewTime: "2023-11-14T22:13:21.000000Z",
          leaseTransitions: 2,
        },
      },
    },
    {
      kind: "Event",
      group: "",
      // involvedObject 2 → kind 1, name 3; reason 3; message 4; source 5 → component 1; count 8; type 9;
      // eventTime 10 (MicroTime, zero → null); reportingComponent 14 (no omitempty)
      bytes: [
        ...meta(sfield(1, "e")),
        ...mfield(2, sfield(1, "Pod"), sfield(3, "p")),
        ...sfield(3, "Started"),
        ...sfield(4, "m"),
        ...mfield(5, sfield(1, "kubelet")),
        ...vfield(8, 3),
        ...sfield(9, "Normal"),
        ...mfield(10),
        ...sfield(14, ""),
      ],
      want: {
        metadata: { name: "e" },
        involvedObject: { kind: "Pod", name: "p" },
        reason: "Started",
        message: "m",
        source: { component: "kubelet" },
        count: 3,
        type: "Normal",
        eventTime: null,
        reportingComponent: "",
      },
    },
    {
      kind: "Node",
      group: "",
      // spec 2: podCIDR 1, unschedulable 4, taints 5 → key 1, value 2, effect 3; podCIDRs 7
      bytes: [
        ...meta(sfield(1, "n1")),
        ...mfield(
          2,
          sfield(1, "10.0.0.0/24"),
          vfield(4, true),
          mfield(5, sfield(1, "k"), sfield(3, "NoSchedule")),
          sfield(7, "10.0.0.0/24"),
        ),
      ],
      want: {
        metadata: { name: "n1" },
        spec: {
          podCIDR: "10.0.0.0/24",
          unschedulable: true,
          taints: [{ key: "k", effect: "NoSchedule" }],
          podCIDRs: ["10.0.0.0/24"],
        },
      },
    },
    {
      kind: "PersistentVolumeClaim",
      group: "",
      // spec 2: accessModes 1, resources 2 → requests 2 (map of Quantity), storageClassName 5 (pointer)
      bytes: [
        ...meta(sfield(1, "pvc")),
        ...mfield(
          2,
          sfield(1, "ReadWriteOnce"),
          mfield(2, mfield(2, sfield(1, "storage"), mfield(2, sfield(1, "1Gi")))),
          sfield(5, ""),
        ),
      ],
      want: {
        metadata: { name: "pvc" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, storageClassName: "" },
      },
    },
    {
      kind: "Endpoints",
      group: "",
      // subsets 2 → addresses 1 → ip 1, nodeName 4 (pointer); ports 3 → name 1, port 2, protocol 3
      bytes: [
        ...meta(sfield(1, "svc")),
        ...mfield(
          2,
          mfield(1, sfield(1, "10.0.0.5"), sfield(4, "n1")),
          mfield(3, sfield(1, "http"), vfield(2, 80), sfield(3, "TCP")),
        ),
      ],
      want: {
        metadata: { name: "svc" },
        subsets: [
          { addresses: [{ ip: "10.0.0.5", nodeName: "n1" }], ports: [{ name: "http", port: 80, protocol: "TCP" }] },
        ],
      },
    },
  ];
  it.each(newRoots)(
    "$kind ($group/v1): a body with the fields kubectl create fills",
    ({ kind, group, bytes, want }) => {
      const { object, unknown } = decode(kind, bytes, group);
      expect(object).toEqual(want);
      expect(unknown).toEqual([]);
    },
  );

  // The bodies of kubectl's typed subresource writes and reviews (field numbers from authorization/v1,
  // authentication/v1, policy/v1, certificates/v1 and core/v1 generated.proto).
  it("SelfSubjectAccessReview (kubectl auth can-i): resourceAttributes and nonResourceAttributes", () => {
    const { object, unknown } = decode(
      "SelfSubjectAccessReview",
      [
        ...meta(mfield(8)),
        ...mfield(
          2,
          mfield(
            1,
            sfield(1, "default"),
            sfield(2, "create"),
            sfield(3, "apps"),
            sfield(5, "deployments"),
            sfield(6, "scale"),
            sfield(7, "web"),
          ),
        ),
      ],
      "authorization.k8s.io",
    );
    expect(object).toEqual({
      metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: {
          namespace: "default",
          verb: "create",
          group: "apps",
          resource: "deployments",
          subresource: "scale",
          name: "web",
        },
      },
    });
    expect(unknown).toEqual([]);
    const nonResource = decode(
      "SelfSubjectAccessReview",
      [...mfield(2, mfield(2, sfield(1, "/healthz"), sfield(2, "get")))],
      "authorization.k8s.io",
    );
    expect(nonResource.object).toEqual({ spec: { nonResourceAttributes: { path: "/healthz", verb: "get" } } });
  });

  it("SelfSubjectRulesReview (kubectl auth can-i --list) and SelfSubjectReview (kubectl auth whoami)", () => {
    expect(
      decode("SelfSubjectRulesReview", [...mfield(2, sfield(1, "kube-system"))], "authorization.k8s.io").object,
    ).toEqual({
      spec: { namespace: "kube-system" },
    });
    expect(decode("SelfSubjectReview", [...meta(mfield(8))], "authentication.k8s.io").object).toEqual({
      metadata: { creationTimestamp: null },
    });
  });

  it("SubjectAccessReview: user, groups, uid and extra (ExtraValue is a JSON array of strings)", () => {
    const { object, unknown } = decode(
      "SubjectAccessReview",
      [
        ...mfield(
          2,
          mfield(1, sfield(2, "get"), sfield(5, "pods")),
          sfield(3, "alice"),
          sfield(4, "dev"),
          sfield(4, "ops"),
          mfield(5, sfield(1, "scopes"), mfield(2, sfield(1, "a"), sfield(1, "b"))),
          mfield(5, sfield(1, "empty"), mfield(2)),
          sfield(6, "u-1"),
        ),
      ],
      "authorization.k8s.io",
    );
    expect(object).toEqual({
      spec: {
        resourceAttributes: { verb: "get", resource: "pods" },
        user: "alice",
        groups: ["dev", "ops"],
        extra: { scopes: ["a", "b"], empty: [] },
        uid: "u-1",
      },
    });
    expect(unknown).toEqual([]);
  });

  it("TokenRequest (kubectl create token): audiences, expirationSeconds (a pointer: 0 kept), boundObjectRef", () => {
    const { object } = decode(
      "TokenRequest",
      [
        ...meta(sfield(1, "bot"), sfield(3, "default")),
        ...mfield(
          2,
          sfield(1, "api"),
          sfield(1, "vault"),
          mfield(3, sfield(1, "Pod"), sfield(2, "v1"), sfield(3, "p"), sfield(4, "u")),
          vfield(4, 3600),
        ),
      ],
      "authentication.k8s.io",
    );
    expect(object).toEqual({
      metadata: { name: "bot", namespace: "default" },
      spec: {
        audiences: ["api", "vault"],
        boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "p", uid: "u" },
        expirationSeconds: 3600,
      },
    });
    expect(decode("TokenRequest", [...mfield(2, vfield(4, 0))], "authentication.k8s.io").object).toEqual({
      spec: { expirationSeconds: 0 },
    });
  });

  it("Eviction (kubectl drain): meta/v1 DeleteOptions with meta/v1 Preconditions, a zero grace period kept", () => {
    const { object, unknown } = decode(
      "Eviction",
      [
        ...meta(sfield(1, "web-1"), sfield(3, "default"), mfield(8)),
        ...mfield(
          2,
          vfield(1, 0),
          mfield(2, sfield(1, "uid-1"), sfield(2, "42")),
          sfield(4, "Foreground"),
          sfield(5, "All"),
        ),
      ],
      "policy",
    );
    expect(object).toEqual({
      metadata: { name: "web-1", namespace: "default", creationTimestamp: null },
      deleteOptions: {
        gracePeriodSeconds: 0,
        preconditions: { uid: "uid-1", resourceVersion: "42" },
        propagationPolicy: "Foreground",
        dryRun: ["All"],
      },
    });
    expect(unknown).toEqual([]);
    // kubectl's default: an empty DeleteOptions.
    expect(decode("Eviction", [...meta(sfield(1, "web-1")), ...mfield(2)], "policy").object).toEqual({
      metadata: { name: "web-1" },
      deleteOptions: {},
    });
  });

  it("Binding (a scheduler's pods/binding) and CertificateSigningRequest (request bytes, usages, extra)", () => {
    expect(
      decode("Binding", [...meta(sfield(1, "p")), ...mfield(2, sfield(1, "Node"), sfield(3, "node-0"))]).object,
    ).toEqual({
      metadata: { name: "p" },
      target: { kind: "Node", name: "node-0" },
    });
    const csr = decode(
      "CertificateSigningRequest",
      [
        ...meta(sfield(1, "c")),
        ...mfield(
          2,
          bfield(1, [1, 2]),
          sfield(5, "client auth"),
          mfield(6, sfield(1, "k"), mfield(2, sfield(1, "v"))),
          sfield(7, "kubernetes.io/kube-apiserver-client"),
        ),
        ...mfield(3, mfield(1, sfield(1, "Approved"), sfield(2, "KubectlApprove"), sfield(6, "True"))),
      ],
      "certificates.k8s.io",
    );
    expect(csr.object).toEqual({
      metadata: { name: "c" },
      spec: {
        request: "AQI=",
        usages: ["client auth"],
        extra: { k: ["v"] },
        signerName: "kubernetes.io/kube-apiserver-client",
      },
      status: { conditions: [{ type: "Approved", reason: "KubectlApprove", status: "True" }] },
    });
  });

  it("inlined embedded structs join their parent (Volume's VolumeSource, ConfigMapVolumeSource's name)", () => {
    // Pod.spec 2 → PodSpec.volumes 1 → Volume{name 1, VolumeSource 2{emptyDir 2{sizeLimit 2}, configMap 19{1{name 1}}}}
    const { object } = decode("Pod", [
      ...mfield(
        2,
        mfield(1, sfield(1, "scratch"), mfield(2, mfield(2, mfield(2, sfield(1, "1Gi"))))),
        mfield(1, sfield(1, "cfg"), mfield(2, mfield(19, mfield(1, sfield(1, "my-cm")), vfield(3, 420)))),
      ),
    ]);
    expect(object).toEqual({
      spec: {
        volumes: [
          { name: "scratch", emptyDir: { sizeLimit: "1Gi" } },
          { name: "cfg", configMap: { name: "my-cm", defaultMode: 420 } },
        ],
      },
    });
  });

  it("a repeated non-repeated message merges; a repeated scalar: the last wins; packed repeated scalars", () => {
    const { object } = decode("Namespace", [
      ...meta(sfield(1, "a"), mapEntry(11, "x", "1")),
      ...meta(sfield(1, "b"), mapEntry(11, "y", "2")),
    ]);
    expect(object).toEqual({ metadata: { name: "b", labels: { x: "1", y: "2" } } });
    // PodSecurityContext (PodSpec 14).supplementalGroups 4, packed.
    const packed = decode("Pod", [...mfield(2, mfield(14, bfield(4, [...varint(1000), ...varint(2000)])))]);
    expect(packed.object).toEqual({ spec: { securityContext: { supplementalGroups: [1000, 2000] } } });
  });

  it("unknown fields are skipped and reported with message, path, field number, wire type and offset", () => {
    const bytes = [...meta(sfield(1, "x"), sfield(99, "future")), ...vfield(50, 7)];
    const { object, unknown } = decode("ConfigMap", bytes, "", 100);
    expect(object).toEqual({ metadata: { name: "x" } });
    expect(unknown).toEqual([
      { message: "ObjectMeta", path: "metadata", field: 99, wireType: 2, offset: 105 },
      { message: "ConfigMap", path: "", field: 50, wireType: 0, offset: 114 },
    ]);
    // Inside a well-known message too: Time{seconds, 9: ?}.
    const time = decode("Namespace", [...meta(mfield(8, vfield(1, 0), vfield(9, 1)))]);
    expect(time.object).toEqual({ metadata: { creationTimestamp: "1970-01-01T00:00:00Z" } });
    expect(time.unknown).toEqual([
      { message: "Time", path: "metadata.creationTimestamp", field: 9, wireType: 0, offset: 6 },
    ]);
  });

  it("malformed input: errors name the offset and the field", () => {
    expect(decodeError("ConfigMap", [...tag(1, 2), 0x05, 0x0a]).message).toBe(
      "length 5 runs past the end of the enclosing message (1 bytes left) at byte 1 (field metadata)",
    );
    expect(decodeError("ConfigMap", [...vfield(1, 3)]).message).toBe(
      "wire type 0 for ConfigMap.metadata (field 1), expected 2 at byte 0 (field metadata)",
    );
    expect(decodeError("ConfigMap", [...meta([...tag(11, 2), 0x02, 0x0a, 0x09])]).message).toBe(
      "length 9 runs past the end of the enclosing message (0 bytes left) at byte 5 (field metadata.labels)",
    );
    expect(decodeError("ConfigMap", [...meta(mfield(11, sfield(1, "k"), vfield(2, 1)))]).reason).toBe(
      "map value has wire type 0, expected 2",
    );
    expect(decodeError("Pod", [...mfield(2, mfield(2, sfield(1, "c"), vfield(2, 1)))]).path).toBe(
      "spec.containers[0].image",
    );
    expect(decodeError("Namespace", [...meta(mfield(8, vfield(1, 253402300800n)))]).reason).toBe(
      "time 253402300800s is outside years 0001-9999",
    );
  });

  // A fast-check round trip: JSON objects in the decoder's output form, encoded with the schema, decode to themselves.
  const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
  const text = fc.string({ maxLength: 12 });
  const strMap = fc.dictionary(name, text, { maxKeys: 3 });
  const nonEmpty = <T>(a: fc.Arbitrary<T>) => a.filter((v) => v !== "" && v !== 0 && v !== false);
  const objectMeta = fc.record(
    {
      name: nonEmpty(name),
      namespace: nonEmpty(name),
      generateName: nonEmpty(name),
      labels: strMap.filter((m) => Object.keys(m).length > 0),
      annotations: strMap.filter((m) => Object.keys(m).length > 0),
      finalizers: fc.array(nonEmpty(name), { minLength: 1, maxLength: 2 }),
      generation: fc.integer({ min: 1, max: 2 ** 40 }),
    },
    { requiredKeys: [] },
  );
  const container = fc.record(
    {
      name,
      image: nonEmpty(text),
      command: fc.array(text, { minLength: 1, maxLength: 3 }),
      resources: fc.record(
        {
          limits: fc.dictionary(fc.constantFrom("cpu", "memory"), fc.constantFrom("1", "500m", "2Gi"), { minKeys: 1 }),
        },
        { requiredKeys: [] },
      ),
      stdin: fc.constant(true),
    },
    { requiredKeys: ["name"] },
  );
  const deployment = fc.record(
    {
      metadata: objectMeta,
      spec: fc.record(
        {
          replicas: fc.integer({ min: -5, max: 100 }),
          paused: fc.constant(true),
          progressDeadlineSeconds: fc.integer({ min: 0, max: 600 }),
          strategy: fc.record(
            {
              type: fc.constantFrom("Recreate", "RollingUpdate"),
              rollingUpdate: fc.record(
                { maxSurge: fc.oneof(fc.integer({ min: -3, max: 3 }), text), maxUnavailable: fc.constant("25%") },
                { requiredKeys: [] },
              ),
            },
            { requiredKeys: [] },
          ),
          template: fc.record({
            metadata: objectMeta,
            spec: fc.record({ containers: fc.array(container, { minLength: 1, maxLength: 2 }) }),
          }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  );
  test.prop([deployment])("round trip: encode(Deployment JSON) decodes to the same JSON", (obj) => {
    const bytes = encodeMessage("Deployment", obj as Record<string, unknown>);
    expect(decode("Deployment", bytes, "apps").object).toEqual(obj);
  });

  // A schema-driven arbitrary for every root: each field of the table gets values in the canonical form the decoder
  // writes (zero scalars only where the Go field keeps them, non-empty lists and maps, whole-second Times,
  // six-digit MicroTimes), nested messages to a bounded depth, inlined structs merged into their parent.
  const memo = new Map<string, fc.Arbitrary<Record<string, unknown>>>();
  function valueArb(f: FieldSchema, keepZero: boolean, depth: number): fc.Arbitrary<unknown> {
    switch (f.type) {
      case "string":
        return fc.string({ minLength: keepZero ? 0 : 1, maxLength: 6 });
      case "bool":
        return keepZero ? fc.boolean() : fc.constant(true);
      case "int32":
        return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).filter((v) => keepZero || v !== 0);
      case "int64":
        return fc.maxSafeInteger().filter((v) => keepZero || v !== 0);
      case "bytes":
        return fc.uint8Array({ minLength: 1, maxLength: 4 }).map((b) => Buffer.from(b).toString("base64"));
      case "Time":
        return fc
          .integer({ min: 0, max: 4_102_444_800 })
          .map((t) => `${new Date(t * 1000).toISOString().slice(0, 19)}Z`);
      case "MicroTime":
        return fc
          .tuple(fc.integer({ min: 0, max: 4_102_444_800 }), fc.integer({ min: 0, max: 999_999 }))
          .map(([t, us]) => `${new Date(t * 1000).toISOString().slice(0, 19)}.${String(us).padStart(6, "0")}Z`);
      case "Quantity":
        return fc.constantFrom("1", "500m", "1Gi", "2Ki");
      case "IntOrString":
        return fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.string({ maxLength: 4 }));
      case "ExtraValue":
        return fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 });
      default:
        return messageArb(f.type, depth - 1);
    }
  }
  function messageArb(name: string, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const key = `${name}@${depth}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const own: Record<string, fc.Arbitrary<unknown>> = {};
    const inlined: fc.Arbitrary<Record<string, unknown>>[] = [];
    for (const f of messageSchema(name)?.fields.values() ?? []) {
      const nested = !f.scalar && messageSchema(f.type) !== undefined;
      if (f.type === "FieldsV1" || (nested && depth <= 0)) continue;
      if (f.inline) inlined.push(messageArb(f.type, depth));
      else if (f.map)
        own[f.json] = fc.dictionary(fc.string({ maxLength: 4 }), valueArb(f, true, depth), { minKeys: 1, maxKeys: 2 });
      else if (f.repeated) own[f.json] = fc.array(valueArb(f, true, depth), { minLength: 1, maxLength: 2 });
      else own[f.json] = valueArb(f, f.keepZero, depth);
    }
    const arb = fc
      .tuple(fc.record(own, { requiredKeys: [] }), ...inlined)
      .map(([o, ...ins]) => Object.assign({}, ...ins, o) as Record<string, unknown>);
    memo.set(key, arb);
    return arb;
  }
  const anyRoot = fc.constantFrom(...SCHEMA_ROOTS).chain((r) => messageArb(r.kind, 3).map((obj) => ({ root: r, obj })));
  test.prop([anyRoot], { numRuns: 200 })(
    "round trip of every root: encode(schema-shaped JSON) decodes to the same JSON, no unknown fields",
    ({ root, obj }) => {
      const { object, unknown } = decode(root.kind, encodeMessage(root.kind, obj), root.group);
      expect(object).toEqual(obj);
      expect(unknown).toEqual([]);
    },
  );

  it("the schema graph is acyclic, so nesting depth is bounded by the schema and not by the body", () => {
    const state = new Map<string, "visiting" | "done">();
    const visit = (name: string, trail: string[]): void => {
      if (state.get(name) === "done") return;
      expect(state.get(name), `cycle: ${[...trail, name].join(" → ")}`).toBeUndefined();
      state.set(name, "visiting");
      for (const f of messageSchema(name)?.fields.values() ?? []) {
        if (!f.scalar && messageSchema(f.type) !== undefined) visit(f.type, [...trail, name]);
      }
      state.set(name, "done");
    };
    for (const r of SCHEMA_ROOTS) visit(r.kind, []);
    expect(state.size).toBeGreaterThan(150);
  });

  it("every message of the table parses and every reference resolves", () => {
    for (const kind of ["Namespace", "ConfigMap", "Secret", "Service", "ServiceAccount", "Pod"]) {
      expect(kindSchema("", "v1", kind)?.name).toBe(kind);
    }
    expect(kindSchema("apps", "v1", "Deployment")?.name).toBe("Deployment");
    expect(kindSchema("batch", "v1", "Job")?.name).toBe("Job");
    for (const r of SCHEMA_ROOTS) expect(kindSchema(r.group, r.version, r.kind)?.name).toBe(r.kind);
    expect(kindSchema("", "v1", "Job")).toBeUndefined();
    expect(kindSchema("events.k8s.io", "v1", "Event")).toBeUndefined();
    expect(kindSchema("example.com", "v1", "Deployment")).toBeUndefined();
    expect(messageSchema("PodSpec")?.fields.get(2)).toMatchObject({
      json: "containers",
      type: "Container",
      repeated: true,
    });
  });
});
