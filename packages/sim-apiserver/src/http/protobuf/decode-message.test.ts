// Decoding with the schema tables, from bytes built by hand with the field numbers of upstream's generated.proto
// (so a wrong number in the table fails here, not only against kubectl), plus a fast-check round trip.
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { type DecodeContext, decodeMessageBytes } from "./decode-message.js";
import { kindSchema, messageSchema } from "./schema.js";
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
    for (const k of ["Namespace", "ConfigMap", "Secret", "Service", "ServiceAccount", "Pod", "Deployment", "Job"]) {
      visit(k, []);
    }
    expect(state.size).toBeGreaterThan(150);
  });

  it("every message of the table parses and every reference resolves", () => {
    for (const kind of ["Namespace", "ConfigMap", "Secret", "Service", "ServiceAccount", "Pod"]) {
      expect(kindSchema("", "v1", kind)?.name).toBe(kind);
    }
    expect(kindSchema("apps", "v1", "Deployment")?.name).toBe("Deployment");
    expect(kindSchema("batch", "v1", "Job")?.name).toBe("Job");
    expect(kindSchema("", "v1", "Job")).toBeUndefined();
    expect(kindSchema("example.com", "v1", "Deployment")).toBeUndefined();
    expect(messageSchema("PodSpec")?.fields.get(2)).toMatchObject({
      json: "containers",
      type: "Container",
      repeated: true,
    });
  });
});
