import type { KubeObject } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { tablePrinterFor } from "./table.js";
import {
  cronJobTablePrinter,
  daemonSetTablePrinter,
  deploymentTablePrinter,
  eventTablePrinter,
  jobTablePrinter,
  nodeTablePrinter,
  podTablePrinter,
  replicaSetTablePrinter,
  serviceTablePrinter,
  statefulSetTablePrinter,
} from "./table-printers.js";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const FIVE_MIN_AGO = "2026-01-01T00:55:00Z";

const k = (o: Record<string, unknown>): KubeObject => o as KubeObject;

describe("pod printer (printers_test.go TestPrintPod, TestPrintPodwide)", () => {
  it.each([
    [
      "test1: one of two containers ready and running, 6 restarts",
      {
        metadata: { name: "test1" },
        spec: { containers: [{ name: "a" }, { name: "b" }] },
        status: {
          phase: "podPhase",
          containerStatuses: [{ ready: true, restartCount: 3, state: { running: {} } }, { restartCount: 3 }],
        },
      },
      ["test1", "1/2", "podPhase", "6", "<unknown>", "<none>", "<none>", "<none>", "<none>"],
    ],
    [
      "test2: a waiting reason wins over the phase",
      {
        metadata: { name: "test2" },
        spec: { containers: [{ name: "a" }, { name: "b" }], nodeName: "node1" },
        status: {
          phase: "Pending",
          podIP: "1.1.1.1",
          containerStatuses: [
            { state: { waiting: { reason: "ContainerWaitingReason" } }, restartCount: 3 },
            { ready: true, restartCount: 3, state: { running: {} } },
          ],
        },
      },
      ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>", "1.1.1.1", "node1", "<none>", "<none>"],
    ],
    [
      "test3: a terminated container's exit code; a deleting pod is Terminating",
      {
        metadata: { name: "test3", deletionTimestamp: FIVE_MIN_AGO, creationTimestamp: FIVE_MIN_AGO },
        spec: { containers: [{ name: "a" }] },
        status: { phase: "Running", containerStatuses: [{ state: { terminated: { exitCode: 2 } } }] },
      },
      ["test3", "0/1", "Terminating", "0", "5m", "<none>", "<none>", "<none>", "<none>"],
    ],
    [
      "a restart with its time: `N (age ago)`",
      {
        metadata: { name: "r" },
        spec: { containers: [{ name: "a" }] },
        status: {
          phase: "Running",
          containerStatuses: [
            {
              ready: true,
              restartCount: 2,
              state: { running: {} },
              lastState: { terminated: { finishedAt: FIVE_MIN_AGO } },
            },
          ],
        },
      },
      ["r", "1/1", "Running", "2 (5m ago)", "<unknown>", "<none>", "<none>", "<none>", "<none>"],
    ],
  ])("%s", (_n, pod, want) => {
    expect(podTablePrinter.cells(k(pod), NOW)).toEqual(want);
  });

  it("columns are upstream's, the wide ones at priority 1", () => {
    expect(podTablePrinter.columns.map((c) => [c.name, c.priority])).toEqual([
      ["Name", 0],
      ["Ready", 0],
      ["Status", 0],
      ["Restarts", 0],
      ["Age", 0],
      ["IP", 1],
      ["Node", 1],
      ["Nominated Node", 1],
      ["Readiness Gates", 1],
    ]);
  });
});

describe("workload printers (TestPrintDeployment, TestPrintReplicaSet, TestPrintJob)", () => {
  const template = {
    spec: {
      containers: [
        { name: "fake-container1", image: "fake-image1" },
        { name: "fake-container2", image: "fake-image2" },
      ],
    },
  };
  it("deployment: READY desired, up-to-date, available, containers, images, selector", () => {
    const d = k({
      metadata: { name: "test1", creationTimestamp: FIVE_MIN_AGO },
      spec: { replicas: 5, template, selector: { matchLabels: { foo: "bar" } } },
      status: { replicas: 10, updatedReplicas: 2, availableReplicas: 1, readyReplicas: 1 },
    });
    expect(deploymentTablePrinter.cells(d, NOW)).toEqual([
      "test1",
      "1/5",
      2,
      1,
      "5m",
      "fake-container1,fake-container2",
      "fake-image1,fake-image2",
      "foo=bar",
    ]);
    expect(deploymentTablePrinter.columns.map((c) => c.name)).toEqual([
      "Name",
      "Ready",
      "Up-to-date",
      "Available",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ]);
  });

  it("replicaset: desired, current, ready", () => {
    const rs = k({
      metadata: { name: "rs" },
      spec: { replicas: 5, template },
      status: { replicas: 5, readyReplicas: 2 },
    });
    expect(replicaSetTablePrinter.cells(rs, NOW).slice(0, 4)).toEqual(["rs", 5, 5, 2]);
  });

  it("job: completions, Complete status and duration; parallel jobs without completions", () => {
    const done = k({
      metadata: { name: "job1" },
      spec: { completions: 2, template },
      status: {
        succeeded: 1,
        startTime: "2026-01-01T00:50:00Z",
        completionTime: "2026-01-01T00:53:00Z",
        conditions: [{ type: "Complete", status: "True" }],
      },
    });
    expect(jobTablePrinter.cells(done, NOW).slice(0, 4)).toEqual(["job1", "Complete", "1/2", "3m"]);
    const parallel = k({ metadata: { name: "job2" }, spec: { parallelism: 2, template }, status: { succeeded: 0 } });
    expect(jobTablePrinter.cells(parallel, NOW).slice(0, 4)).toEqual(["job2", "Running", "0/1 of 2", ""]);
  });
});

describe("cronjob, statefulset and daemonset printers (TestPrintCronJob, TestPrintStatefulSet, TestPrintDaemonSet)", () => {
  const template = { spec: { containers: [{ name: "c1", image: "i1" }] } };
  it.each([
    [
      "a suspend false, last scheduled 5m ago, no time zone",
      {
        metadata: { name: "cronjob1", creationTimestamp: FIVE_MIN_AGO },
        spec: { schedule: "0/5 * * * ?", suspend: false, jobTemplate: { spec: { template } } },
        status: { lastScheduleTime: FIVE_MIN_AGO },
      },
      ["cronjob1", "0/5 * * * ?", "<none>", "False", 0, "5m", "5m", "c1", "i1", "<none>"],
    ],
    [
      "never scheduled, suspend unset, a time zone and two active jobs",
      {
        metadata: { name: "cronjob2" },
        spec: {
          schedule: "@hourly",
          timeZone: "Europe/Berlin",
          jobTemplate: { spec: { template, selector: { matchLabels: { a: "b" } } } },
        },
        status: { active: [{ name: "j1" }, { name: "j2" }] },
      },
      ["cronjob2", "@hourly", "Europe/Berlin", "<unset>", 2, "<none>", "<unknown>", "c1", "i1", "a=b"],
    ],
    [
      "suspended",
      { metadata: { name: "cronjob3" }, spec: { schedule: "* * * * *", suspend: true }, status: {} },
      ["cronjob3", "* * * * *", "<none>", "True", 0, "<none>", "<unknown>", "", "", "<none>"],
    ],
  ])("cronjob: %s", (_name, cj, want) => {
    expect(cronJobTablePrinter.cells(k(cj), NOW)).toEqual(want);
  });

  it("cronjob columns are upstream's, the wide ones at priority 1", () => {
    expect(cronJobTablePrinter.columns.map((c) => [c.name, c.type, c.priority])).toEqual([
      ["Name", "string", 0],
      ["Schedule", "string", 0],
      ["Timezone", "string", 0],
      ["Suspend", "boolean", 0],
      ["Active", "integer", 0],
      ["Last Schedule", "string", 0],
      ["Age", "string", 0],
      ["Containers", "string", 1],
      ["Images", "string", 1],
      ["Selector", "string", 1],
    ]);
  });

  it("statefulset: READY is ready/desired, then age, containers, images", () => {
    const ss = k({
      metadata: { name: "test1", creationTimestamp: FIVE_MIN_AGO },
      spec: { replicas: 5, template },
      status: { replicas: 5, readyReplicas: 2 },
    });
    expect(statefulSetTablePrinter.cells(ss, NOW)).toEqual(["test1", "2/5", "5m", "c1", "i1"]);
    expect(statefulSetTablePrinter.columns.map((c) => c.name)).toEqual([
      "Name",
      "Ready",
      "Age",
      "Containers",
      "Images",
    ]);
  });

  it("daemonset: desired, current, ready, up-to-date, available, node selector (sorted), selector", () => {
    const status = {
      currentNumberScheduled: 2,
      desiredNumberScheduled: 3,
      numberReady: 1,
      updatedNumberScheduled: 2,
      numberAvailable: 0,
    };
    const ds = k({
      metadata: { name: "test1", creationTimestamp: FIVE_MIN_AGO },
      spec: { template, selector: { matchLabels: { app: "d" } } },
      status,
    });
    expect(daemonSetTablePrinter.cells(ds, NOW)).toEqual(["test1", 3, 2, 1, 2, 0, "<none>", "5m", "c1", "i1", "app=d"]);
    const pinned = k({
      metadata: { name: "test2" },
      spec: { template: { spec: { ...template.spec, nodeSelector: { zone: "a", disk: "ssd" } } } },
      status,
    });
    expect(daemonSetTablePrinter.cells(pinned, NOW)[6]).toBe("disk=ssd,zone=a");
    expect(daemonSetTablePrinter.columns.map((c) => c.name)).toEqual([
      "Name",
      "Desired",
      "Current",
      "Ready",
      "Up-to-date",
      "Available",
      "Node Selector",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ]);
  });
});

describe("service, node and event printers (TestPrintService, TestPrintNodeStatus, TestPrintEvent)", () => {
  it("service: ClusterIP with ports, NodePort's node ports, LoadBalancer pending", () => {
    const svc = k({
      metadata: { name: "kubernetes" },
      spec: { type: "ClusterIP", clusterIP: "10.96.0.1", ports: [{ port: 443, protocol: "TCP" }] },
    });
    expect(serviceTablePrinter.cells(svc, NOW)).toEqual([
      "kubernetes",
      "ClusterIP",
      "10.96.0.1",
      "<none>",
      "443/TCP",
      "<unknown>",
      "<none>",
    ]);
    const np = k({
      metadata: { name: "np" },
      spec: {
        type: "NodePort",
        clusterIP: "10.0.0.5",
        ports: [{ port: 80, nodePort: 30080 }],
        selector: { app: "web" },
      },
    });
    expect(serviceTablePrinter.cells(np, NOW)).toEqual([
      "np",
      "NodePort",
      "10.0.0.5",
      "<none>",
      "80:30080/TCP",
      "<unknown>",
      "app=web",
    ]);
    const lb = k({ metadata: { name: "lb" }, spec: { type: "LoadBalancer", clusterIP: "10.0.0.6", ports: [] } });
    expect(serviceTablePrinter.cells(lb, NOW).slice(3, 5)).toEqual(["<pending>", "<none>"]);
  });

  it("node: Ready, SchedulingDisabled, roles from node-role labels, version", () => {
    const n = k({
      metadata: { name: "foo1", labels: { "node-role.kubernetes.io/control-plane": "" } },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: "Ready", status: "True" }],
        nodeInfo: { kubeletVersion: "v1.34.0" },
        addresses: [{ type: "InternalIP", address: "10.1.1.1" }],
      },
    });
    expect(nodeTablePrinter.cells(n, NOW).slice(0, 6)).toEqual([
      "foo1",
      "Ready,SchedulingDisabled",
      "control-plane",
      "<unknown>",
      "v1.34.0",
      "10.1.1.1",
    ]);
    expect(nodeTablePrinter.cells(k({ metadata: { name: "n" } }), NOW)[1]).toBe("Unknown");
  });

  it("event: last seen, type, reason, kind/name, source, message, count", () => {
    const e = k({
      metadata: { name: "event1" },
      involvedObject: { kind: "Pod", name: "foo" },
      source: { component: "kubelet", host: "node1" },
      reason: "Event Reason",
      message: "Message Data ",
      firstTimestamp: "2025-12-29T01:00:00Z",
      lastTimestamp: FIVE_MIN_AGO,
      count: 6,
      type: "Normal",
    });
    expect(eventTablePrinter.cells(e, NOW)).toEqual([
      "5m",
      "Normal",
      "Event Reason",
      "pod/foo",
      "",
      "kubelet, node1",
      "Message Data",
      "3d",
      6,
      "event1",
    ]);
  });

  it("tablePrinterFor picks them by group and resource; other kinds keep the default printer", () => {
    expect(tablePrinterFor("", "pods")).toBe(podTablePrinter);
    expect(tablePrinterFor("apps", "deployments")).toBe(deploymentTablePrinter);
    expect(tablePrinterFor("events.k8s.io", "events")).toBe(eventTablePrinter);
    expect(tablePrinterFor("batch", "cronjobs")).toBe(cronJobTablePrinter);
    expect(tablePrinterFor("apps", "statefulsets")).toBe(statefulSetTablePrinter);
    expect(tablePrinterFor("apps", "daemonsets")).toBe(daemonSetTablePrinter);
    expect(tablePrinterFor("", "limitranges").columns.map((c) => c.name)).toEqual(["Name", "Created At"]);
  });
});
