import type { KubeObject } from "@informer-ts/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ContainerWorld, containerOutput, fileModeString } from "./container-output.js";
import { formatLog, rfc3339Nano } from "./pod-log.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const objects: Record<string, KubeObject> = {
  "cm/ns/cfg": {
    metadata: { name: "cfg" },
    data: { "data-1": "value-1", "data-2": "value-2", "bad key": "x" },
  } as KubeObject,
  "cm/ns/kube-root-ca.crt": { metadata: { name: "kube-root-ca.crt" }, data: { "ca.crt": "CA-PEM" } } as KubeObject,
  "secret/ns/sec": {
    metadata: { name: "sec" },
    data: { "data-1": b64("value-1"), password: b64("hunter2") },
  } as KubeObject,
};
const world: ContainerWorld = {
  configMap: (ns, n) => objects[`cm/${ns}/${n}`],
  secret: (ns, n) => objects[`secret/${ns}/${n}`],
  token: (_pod, sa) => `token-for-${sa}`,
};

function pod(container: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: "p", namespace: "ns", uid: "u-1", labels: { app: "web", tier: "front" } },
    spec: {
      serviceAccountName: "sa",
      nodeName: "n1",
      containers: [{ name: "c", image: "busybox", ...container }],
      ...spec,
    },
    status: { podIP: "10.0.0.7" },
  } as unknown as KubeObject;
}
const out = (container: Record<string, unknown>, spec?: Record<string, unknown>) =>
  containerOutput(pod(container, spec), "c", world);

describe("containerOutput (the container output model)", () => {
  it("env/printenv print the resolved environment: envFrom with prefix, env overriding, $(VAR), downward API", () => {
    const lines = out({
      command: ["env"],
      envFrom: [{ configMapRef: { name: "cfg" } }, { prefix: "s-", secretRef: { name: "sec" } }],
      env: [
        { name: "data-1", value: "override" },
        { name: "REF", value: "$(data-2)/$$(data-2)/$(MISSING)" },
        { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
        { name: "APP", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
        { name: "GONE", valueFrom: { configMapKeyRef: { name: "nope", key: "k" } } },
      ],
    });
    expect(lines).toContain("data-1=override");
    expect(lines).toContain("data-2=value-2");
    expect(lines).toContain("s-password=hunter2");
    expect(lines).toContain("REF=value-2/$(data-2)/$(MISSING)");
    expect(lines).toContain("IP=10.0.0.7");
    expect(lines).toContain("APP=web");
    expect(lines).toContain("HOSTNAME=p");
    expect(lines.some((l) => l.startsWith("bad key="))).toBe(false);
    expect(lines.some((l) => l.startsWith("GONE="))).toBe(false);
    expect(out({ command: ["printenv", "data-2", "HOSTNAME"], envFrom: [{ configMapRef: { name: "cfg" } }] })).toEqual([
      "value-2",
      "p",
    ]);
  });

  // test/e2e/common/node/downwardapi.go: "should provide pod name, namespace and IP address as env vars", "… host IP …",
  // "should provide pod UID as env vars"
  it("env fieldRef: every path the kubelet offers for env", () => {
    const p = {
      ...pod({
        command: ["env"],
        env: [
          ["NAME", "metadata.name"],
          ["NS", "metadata.namespace"],
          ["UID", "metadata.uid"],
          ["TIER", "metadata.labels['tier']"],
          ["NOTE", "metadata.annotations['note']"],
          ["NODE", "spec.nodeName"],
          ["SA", "spec.serviceAccountName"],
          ["POD_IP", "status.podIP"],
          ["POD_IPS", "status.podIPs"],
          ["HOST_IP", "status.hostIP"],
          ["HOST_IPS", "status.hostIPs"],
          ["BAD", "spec.nope"],
        ].map(([name, fieldPath]) => ({ name, valueFrom: { fieldRef: { fieldPath } } })),
      }),
      status: {
        podIP: "10.0.0.7",
        podIPs: [{ ip: "10.0.0.7" }, { ip: "fd00::7" }],
        hostIP: "172.18.0.2",
        hostIPs: [{ ip: "172.18.0.2" }],
      },
    } as KubeObject;
    (p.metadata as { annotations?: Record<string, string> }).annotations = { note: "hi" };
    const lines = containerOutput(p, "c", world);
    expect(lines).toEqual(
      expect.arrayContaining([
        "NAME=p",
        "NS=ns",
        "UID=u-1",
        "TIER=front",
        "NOTE=hi",
        "NODE=n1",
        "SA=sa",
        "POD_IP=10.0.0.7",
        "POD_IPS=10.0.0.7,fd00::7",
        "HOST_IP=172.18.0.2",
        "HOST_IPS=172.18.0.2",
      ]),
    );
    expect(lines.some((l) => l.startsWith("BAD="))).toBe(false);
  });

  it("cat and agnhost mounttest read ConfigMap, Secret, downwardAPI and projected volumes with items, modes and subPath", () => {
    const spec = {
      volumes: [
        { name: "cm", configMap: { name: "cfg", items: [{ key: "data-1", path: "path/to/data-1", mode: 0o400 }] } },
        { name: "sec", secret: { secretName: "sec", defaultMode: 0o600 } },
        { name: "dapi", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
        {
          name: "kube-api-access-abcde",
          projected: {
            sources: [
              { serviceAccountToken: { path: "token", expirationSeconds: 3607 } },
              { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
              { downwardAPI: { items: [{ path: "namespace", fieldRef: { fieldPath: "metadata.namespace" } }] } },
            ],
          },
        },
      ],
    };
    const mounts = [
      { name: "cm", mountPath: "/etc/cm" },
      { name: "sec", mountPath: "/etc/sec/" },
      { name: "dapi", mountPath: "/etc/podinfo" },
      { name: "sec", mountPath: "/one-file", subPath: "password" },
      { name: "kube-api-access-abcde", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" },
    ];
    expect(
      out(
        {
          command: ["sh", "-c", "cat /etc/cm/path/to/data-1; cat /etc/sec/password /one-file; cat /nope"],
          volumeMounts: mounts,
        },
        spec,
      ),
    ).toEqual(["value-1", "hunter2", "hunter2", "cat: can't open '/nope': No such file or directory"]);
    expect(out({ command: ["cat", "/etc/podinfo/labels"], volumeMounts: mounts }, spec)).toEqual([
      'app="web"',
      'tier="front"',
    ]);
    const sa = "/var/run/secrets/kubernetes.io/serviceaccount";
    expect(
      out(
        {
          image: "registry.k8s.io/e2e-test-images/agnhost:2.53",
          args: [
            "mounttest",
            `--file_content=${sa}/token`,
            `--file_content=${sa}/ca.crt`,
            `--file_content=${sa}/namespace`,
            "--file_mode=/etc/cm/path/to/data-1",
            "--file_perm=/etc/sec/password",
          ],
          volumeMounts: mounts,
        },
        spec,
      ),
    ).toEqual([
      `content of file "${sa}/token": token-for-sa`,
      `content of file "${sa}/ca.crt": CA-PEM`,
      `content of file "${sa}/namespace": ns`,
      'mode of file "/etc/cm/path/to/data-1": -r--------',
      'perms of file "/etc/sec/password": -rw-------',
    ]);
  });

  it("sh -c splits simple sequences, expands $VAR and quotes; what it does not model prints nothing", () => {
    expect(
      out({ command: ["sh", "-c", `echo "a  b" 'c $HOSTNAME' $HOSTNAME; echo -n x && echo y\necho \${HOSTNAME}z`] }),
    ).toEqual(["a  b c $HOSTNAME p", "x", "y", "pz"]);
    expect(out({ command: ["sh", "-c", "env | grep X; echo $(date) > /tmp/x; sleep 3600"] })).toEqual([]);
    expect(out({ command: ["nginx", "-g", "daemon off;"] })).toEqual([]);
    expect(out({})).toEqual([]);
    expect(out({ args: ["echo", "from-args"] })).toEqual(["from-args"]);
  });

  it("property: envFrom a ConfigMap prints every valid key as NAME=value (prefixed too); printenv prints the value", () => {
    const key = fc
      .stringMatching(/^[a-zA-Z_][a-zA-Z0-9_.-]{0,8}$/)
      .filter((k) => !["PATH", "HOME", "HOSTNAME"].includes(k));
    const value = fc.string({ unit: "grapheme-ascii", maxLength: 10 }).filter((v) => !v.includes("\n"));
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 6 }), fc.constantFrom("", "p-"), (data, prefix) => {
        const w: ContainerWorld = {
          ...world,
          configMap: (_ns, n) => (n === "gen" ? ({ data } as unknown as KubeObject) : undefined),
        };
        const p = pod({ command: ["env"], envFrom: [{ prefix, configMapRef: { name: "gen" } }] });
        const lines = containerOutput(p, "c", w);
        for (const [k, v] of Object.entries(data)) expect(lines).toContain(`${prefix}${k}=${v}`);
        const names = Object.keys(data);
        if (names.length > 0) {
          const pe = pod({
            command: ["printenv", `${prefix}${names[0]}`],
            envFrom: [{ prefix, configMapRef: { name: "gen" } }],
          });
          expect(containerOutput(pe, "c", w)).toEqual([data[names[0]!]]);
        }
      }),
    );
  });

  it("fileModeString is Go's FileMode.String of the permission bits", () => {
    expect(fileModeString(0o644)).toBe("-rw-r--r--");
    expect(fileModeString(0o755)).toBe("-rwxr-xr-x");
    expect(fileModeString(0)).toBe("----------");
  });
});

describe("formatLog (kubelet's log options)", () => {
  it("rfc3339Nano trims the fraction's trailing zeros", () => {
    expect(rfc3339Nano(Date.parse("2026-01-02T03:04:05.120Z"))).toBe("2026-01-02T03:04:05.12Z");
    expect(rfc3339Nano(Date.parse("2026-01-02T03:04:05Z"))).toBe("2026-01-02T03:04:05Z");
  });

  it("property: tailLines keeps a suffix of the lines, limitBytes a byte prefix of the full text", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: "grapheme-ascii", maxLength: 8 }).filter((s) => !s.includes("\n")),
          { maxLength: 12 },
        ),
        fc.option(fc.nat(15), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
        (texts, tailLines, limitBytes) => {
          const lines = texts.map((text, i) => ({ time: i * 1000, text }));
          const full = formatLog(lines, {}, undefined);
          expect(full).toBe(texts.map((t) => `${t}\n`).join(""));
          const tailed = formatLog(lines, tailLines === undefined ? {} : { tailLines }, undefined);
          const kept = tailLines === undefined ? texts : tailLines === 0 ? [] : texts.slice(-tailLines);
          expect(tailed).toBe(kept.map((t) => `${t}\n`).join(""));
          const limited = formatLog(lines, limitBytes === undefined ? {} : { limitBytes }, undefined);
          expect(full.startsWith(limited)).toBe(true);
          expect(Buffer.byteLength(limited)).toBe(
            Math.min(Buffer.byteLength(full), limitBytes ?? Number.POSITIVE_INFINITY),
          );
          // since drops exactly the lines stamped before it.
          const since = 3000;
          expect(formatLog(lines, {}, since)).toBe(
            texts
              .slice(3)
              .map((t) => `${t}\n`)
              .join(""),
          );
        },
      ),
    );
  });
});
