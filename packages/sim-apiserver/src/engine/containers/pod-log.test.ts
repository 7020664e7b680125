// Tables ported from upstream: `TestCheckLogLocation` (pkg/registry/core/pod/strategy_test.go, the container choice
// of `LogLocation`), `TestValidatePodLogOptions` (pkg/apis/core/validation/validation_test.go) and
// `TestValidateContainerLogStatus` (pkg/kubelet/kubelet_pods_test.go, which container instance a log reads).
import { type KubeObject, StatusError } from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { type PodLogOptions, PodLogs, validatePodLogOptions } from "./pod-log.js";

function logsOf(pod: KubeObject): PodLogs {
  return new PodLogs({
    clock: new FakeClock(Date.parse("2026-01-01T00:00:10Z")),
    pod: (_ns, name) => (name === pod.metadata?.name ? pod : undefined),
    world: () => ({ configMap: () => undefined, secret: () => undefined, token: () => undefined }),
  });
}

function errorOf(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return `${(err as StatusError).code} ${(err as StatusError).message}`;
  }
}

const c = (name: string) => ({ name, image: "busybox", command: ["echo", name] });

describe("TestCheckLogLocation", () => {
  const cases: { name: string; spec: Record<string, unknown>; opts: PodLogOptions; err?: string }[] = [
    { name: "simple", spec: { containers: [c("mycontainer")], nodeName: "foo" }, opts: {} },
    { name: "no containers", spec: {}, opts: {}, err: "400 a container name must be specified for pod test" },
    {
      name: "multiple containers",
      spec: { containers: [c("container1"), c("container2")] },
      opts: {},
      err: "400 a container name must be specified for pod test, choose one of: [container1 container2]",
    },
    {
      name: "initcontainers",
      spec: { containers: [c("container1"), c("container2")], initContainers: [c("initcontainer1")] },
      opts: {},
      err: "400 a container name must be specified for pod test, choose one of: [initcontainer1 container1 container2]",
    },
    {
      name: "ephemeral containers",
      spec: {
        containers: [c("container1"), c("container2")],
        initContainers: [c("initcontainer1")],
        ephemeralContainers: [c("debugger")],
      },
      opts: {},
      err: "400 a container name must be specified for pod test, choose one of: [initcontainer1 container1 container2 debugger]",
    },
    {
      name: "bad container",
      spec: { containers: [c("container1"), c("container2")] },
      opts: { container: "unknown" },
      err: "400 container unknown is not valid for pod test",
    },
    {
      name: "good with two containers",
      spec: { containers: [c("container1"), c("container2")], nodeName: "foo" },
      opts: { container: "container2" },
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      // The kubelet's side sees every container running (TestValidateContainerLogStatus covers the other states).
      const names = ((tc.spec.containers ?? []) as { name: string }[]).map((x) => x.name);
      const running = { state: { running: { startedAt: "2026-01-01T00:00:01Z" } }, restartCount: 0 };
      const status = { containerStatuses: names.map((name) => ({ name, ...running })) };
      const pod = { metadata: { name: "test", namespace: "ns" }, spec: tc.spec, status } as unknown as KubeObject;
      expect(errorOf(() => logsOf(pod).read("ns", "test", tc.opts))).toBe(tc.err);
    });
  }
});

describe("TestValidatePodLogOptions", () => {
  const fields = (o: PodLogOptions) => validatePodLogOptions(o).map((e) => `${e.type} ${e.field}`);
  it("valid options have no errors", () => {
    for (const o of [
      {},
      { tailLines: 0 },
      { tailLines: 2 },
      { limitBytes: 1 },
      { sinceSeconds: 1 },
      { sinceTime: "2026-01-01T00:00:00Z" },
      { tailLines: 2, limitBytes: 3, sinceSeconds: 4, timestamps: true, follow: true },
    ] as PodLogOptions[])
      expect(fields(o)).toEqual([]);
  });
  it("invalid options name the field", () => {
    expect(fields({ tailLines: -1 })).toEqual(["FieldValueInvalid tailLines"]);
    expect(fields({ limitBytes: 0 })).toEqual(["FieldValueInvalid limitBytes"]);
    expect(fields({ limitBytes: -2 })).toEqual(["FieldValueInvalid limitBytes"]);
    expect(fields({ sinceSeconds: 0 })).toEqual(["FieldValueInvalid sinceSeconds"]);
    expect(fields({ sinceSeconds: 1, sinceTime: "2026-01-01T00:00:00Z" })).toEqual(["FieldValueForbidden "]);
  });
});

describe("TestValidateContainerLogStatus", () => {
  const T = "2026-01-01T00:00:01Z";
  const terminated = { terminated: { exitCode: 1, startedAt: T, containerID: "containerd://x" } };
  const cases: { name: string; state: unknown; lastState?: unknown; previous: boolean; err?: string }[] = [
    { name: "running, current", state: { running: { startedAt: T } }, previous: false },
    {
      name: "running, previous without a terminated last state",
      state: { running: { startedAt: T } },
      previous: true,
      err: '400 previous terminated container "web" in pod "test" not found',
    },
    {
      name: "running, previous after a restart",
      state: { running: { startedAt: T } },
      lastState: terminated,
      previous: true,
    },
    { name: "terminated, current", state: terminated, previous: false },
    {
      name: "waiting ContainerCreating",
      state: { waiting: { reason: "ContainerCreating" } },
      previous: false,
      err: '400 container "web" in pod "test" is waiting to start: ContainerCreating',
    },
    {
      name: "waiting ErrImagePull",
      state: { waiting: { reason: "ErrImagePull" } },
      previous: false,
      err: `400 container "web" in pod "test" is waiting to start: image can't be pulled`,
    },
    {
      name: "waiting ImagePullBackOff",
      state: { waiting: { reason: "ImagePullBackOff" } },
      previous: false,
      err: '400 container "web" in pod "test" is waiting to start: trying and failing to pull image',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const pod = {
        metadata: { name: "test", namespace: "ns" },
        spec: { nodeName: "n1", containers: [c("web")] },
        status: {
          containerStatuses: [{ name: "web", restartCount: 1, state: tc.state, lastState: tc.lastState ?? {} }],
        },
      } as unknown as KubeObject;
      const logs = logsOf(pod);
      expect(errorOf(() => logs.read("ns", "test", { previous: tc.previous }))).toBe(tc.err);
      if (tc.err === undefined) expect(logs.read("ns", "test", { previous: tc.previous }).text).toBe("web\n");
    });
  }

  it("follow on a running container waits for it to stop running or restart; on a terminated one it does not", () => {
    const pod = {
      metadata: { name: "test", namespace: "ns", uid: "u1" },
      spec: { nodeName: "n1", containers: [c("web")] },
      status: { containerStatuses: [{ name: "web", restartCount: 0, state: { running: { startedAt: T } } }] },
    } as unknown as KubeObject;
    const until = logsOf(pod).read("ns", "test", { follow: true }).followUntil!;
    expect(until(pod)).toBe(false);
    const ended = { ...pod, status: { containerStatuses: [{ name: "web", restartCount: 0, state: terminated }] } };
    expect(until(ended as unknown as KubeObject)).toBe(true);
    const restarted = {
      ...pod,
      status: { containerStatuses: [{ name: "web", restartCount: 1, state: { running: { startedAt: T } } }] },
    };
    expect(until(restarted as unknown as KubeObject)).toBe(true);
    expect(until(undefined)).toBe(true);
    expect(until({ ...pod, metadata: { ...pod.metadata, uid: "u2" } } as KubeObject)).toBe(true);
    expect(logsOf(ended as unknown as KubeObject).read("ns", "test", { follow: true }).followUntil).toBeUndefined();
  });
});
