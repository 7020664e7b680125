// The printers of pkg/printers/internalversion/printers.go for HPAs, PDBs, Ingresses, PriorityClasses,
// ResourceQuotas, PVCs, PVs, StorageClasses, ServiceAccounts and Secrets: one table per printer, cells from
// upstream-shaped objects as in printers_test.go (TestPrintHPA, TestPrintPodDisruptionBudget, TestPrintIngress, …).
import type { KubeObject } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { tablePrinterFor } from "./table.js";
import {
  horizontalPodAutoscalerTablePrinter,
  ingressTablePrinter,
  persistentVolumeClaimTablePrinter,
  persistentVolumeTablePrinter,
  podDisruptionBudgetTablePrinter,
  priorityClassTablePrinter,
  resourceQuotaTablePrinter,
  secretTablePrinter,
  serviceAccountTablePrinter,
  storageClassTablePrinter,
} from "./table-printers.js";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const TEN_MIN_AGO = "2026-01-01T00:50:00Z";
const k = (o: Record<string, unknown>): KubeObject => o as KubeObject;
const meta = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  creationTimestamp: TEN_MIN_AGO,
  ...extra,
});
const names = (p: { columns: ReadonlyArray<{ name: string }> }) => p.columns.map((c) => c.name);

describe("printHorizontalPodAutoscaler (printers_test.go TestPrintHPA)", () => {
  const ref = { kind: "ReplicationController", name: "some-rc" };
  const hpa = (spec: Record<string, unknown>, status: Record<string, unknown> = {}) =>
    k({
      apiVersion: "autoscaling/v2",
      metadata: meta("some-hpa"),
      spec: { scaleTargetRef: ref, maxReplicas: 10, ...spec },
      status: { currentReplicas: 4, desiredReplicas: 5, ...status },
    });
  it("columns", () => {
    expect(names(horizontalPodAutoscalerTablePrinter)).toEqual([
      "Name",
      "Reference",
      "Targets",
      "MinPods",
      "MaxPods",
      "Replicas",
      "Age",
    ]);
  });
  it.each([
    [
      "minReplicas unset, no metrics",
      hpa({}),
      ["some-hpa", "ReplicationController/some-rc", "<none>", "<unset>", 10, 4, "10m"],
    ],
    [
      "external source type, target average value (no current)",
      hpa({
        minReplicas: 2,
        metrics: [
          {
            type: "External",
            external: {
              metric: { name: "some-external-metric" },
              target: { type: "AverageValue", averageValue: "100m" },
            },
          },
        ],
      }),
      ["some-hpa", "ReplicationController/some-rc", "<unknown>/100m (avg)", 2, 10, 4, "10m"],
    ],
    [
      "external source type, target value (with current)",
      hpa(
        {
          minReplicas: 2,
          metrics: [
            { type: "External", external: { metric: { name: "m" }, target: { type: "Value", value: "100m" } } },
          ],
        },
        { currentMetrics: [{ type: "External", external: { metric: { name: "m" }, current: { value: "50m" } } }] },
      ),
      ["some-hpa", "ReplicationController/some-rc", "50m/100m", 2, 10, 4, "10m"],
    ],
    [
      "pods source type (with current)",
      hpa(
        {
          minReplicas: 2,
          metrics: [
            { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "100m" } } },
          ],
        },
        { currentMetrics: [{ type: "Pods", pods: { metric: { name: "qps" }, current: { averageValue: "50m" } } }] },
      ),
      ["some-hpa", "ReplicationController/some-rc", "50m/100m", 2, 10, 4, "10m"],
    ],
    [
      "resource source type, target utilization (with current), and three metrics",
      hpa(
        {
          minReplicas: 2,
          metrics: [
            { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } },
            { type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "100m" } } },
            { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
          ],
        },
        {
          currentMetrics: [
            { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 50, averageValue: "10" } } },
            { type: "Resource", resource: { name: "memory", current: { averageValue: "50m" } } },
          ],
        },
      ),
      ["some-hpa", "ReplicationController/some-rc", "cpu: 50%/80%, memory: 50m/100m + 1 more...", 2, 10, 4, "10m"],
    ],
  ])("%s", (_name, o, want) => {
    expect(horizontalPodAutoscalerTablePrinter.cells(o, NOW)).toEqual(want);
  });
  it("an autoscaling/v1 object prints as its v2 conversion (targetCPUUtilizationPercentage → cpu metric)", () => {
    const v1 = k({
      apiVersion: "autoscaling/v1",
      metadata: meta("v1-hpa"),
      spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 70 },
      status: { currentReplicas: 1, desiredReplicas: 1, currentCPUUtilizationPercentage: 12 },
    });
    expect(horizontalPodAutoscalerTablePrinter.cells(v1, NOW)).toEqual([
      "v1-hpa",
      "ReplicationController/some-rc",
      "cpu: 12%/70%",
      1,
      3,
      1,
      "10m",
    ]);
  });
});

describe("printPodDisruptionBudget (TestPrintPodDisruptionBudget)", () => {
  it("minAvailable set, maxUnavailable N/A; and the reverse", () => {
    expect(names(podDisruptionBudgetTablePrinter)).toEqual([
      "Name",
      "Min Available",
      "Max Unavailable",
      "Allowed Disruptions",
      "Age",
    ]);
    const a = k({ metadata: meta("pdb1"), spec: { minAvailable: 22 }, status: { disruptionsAllowed: 5 } });
    const b = k({ metadata: meta("pdb2"), spec: { maxUnavailable: "11%" }, status: { disruptionsAllowed: 5 } });
    expect(podDisruptionBudgetTablePrinter.cells(a, NOW)).toEqual(["pdb1", "22", "N/A", 5, "10m"]);
    expect(podDisruptionBudgetTablePrinter.cells(b, NOW)).toEqual(["pdb2", "N/A", "11%", 5, "10m"]);
  });
});

describe("printIngress (TestPrintIngress)", () => {
  it("class, hosts, load balancer address, ports", () => {
    expect(names(ingressTablePrinter)).toEqual(["Name", "Class", "Hosts", "Address", "Ports", "Age"]);
    const ing = k({
      metadata: meta("test1"),
      spec: {
        ingressClassName: "foo",
        defaultBackend: { service: { name: "default-backend", port: { name: "default-backend" } } },
      },
      status: { loadBalancer: { ingress: [{ ip: "2.3.4.5", hostname: "localhost.localdomain" }] } },
    });
    expect(ingressTablePrinter.cells(ing, NOW)).toEqual(["test1", "foo", "*", "2.3.4.5", "80", "10m"]);
    const many = k({
      metadata: meta("test2"),
      spec: {
        rules: ["a", "b", "c", "d"].map((h) => ({ host: `${h}.example.com` })),
        tls: [{ hosts: ["a.example.com"] }],
      },
    });
    expect(ingressTablePrinter.cells(many, NOW)).toEqual([
      "test2",
      "<none>",
      "a.example.com,b.example.com,c.example.com + 1 more...",
      "",
      "80, 443",
      "10m",
    ]);
  });
});

describe("printPriorityClass (TestPrintPriorityClass)", () => {
  it("value, global default, preemption policy", () => {
    expect(names(priorityClassTablePrinter)).toEqual(["Name", "Value", "Global-Default", "Age", "PreemptionPolicy"]);
    const pc = k({ metadata: meta("pc1"), value: 1, globalDefault: false, preemptionPolicy: "PreemptLowerPriority" });
    expect(priorityClassTablePrinter.cells(pc, NOW)).toEqual(["pc1", 1, false, "10m", "PreemptLowerPriority"]);
    const def = k({ metadata: meta("pc2"), value: 1000000000, globalDefault: true, preemptionPolicy: "Never" });
    expect(priorityClassTablePrinter.cells(def, NOW)).toEqual(["pc2", 1000000000, true, "10m", "Never"]);
  });
});

describe("printResourceQuota (TestPrintResourceQuota)", () => {
  it("requests and limits as resource: used/hard, sorted; an unused resource shows 0", () => {
    expect(names(resourceQuotaTablePrinter)).toEqual(["Name", "Age", "Request", "Limit"]);
    const q = k({
      metadata: meta("rq1"),
      status: {
        hard: { "limits.cpu": "2", pods: "10", "requests.cpu": "1", "limits.memory": "2Gi", secrets: "5" },
        used: { "limits.cpu": "500m", pods: "3", "requests.cpu": "250m", "limits.memory": "1Gi" },
      },
    });
    expect(resourceQuotaTablePrinter.cells(q, NOW)).toEqual([
      "rq1",
      "10m",
      "pods: 3/10, requests.cpu: 250m/1, secrets: 0/5",
      "limits.cpu: 500m/2, limits.memory: 1Gi/2Gi",
    ]);
  });
});

describe("printPersistentVolumeClaim (TestPrintPersistentVolumeClaim)", () => {
  it("a bound claim shows capacity and access modes; an unbound one does not; Terminating while deleting", () => {
    expect(names(persistentVolumeClaimTablePrinter)).toEqual([
      "Name",
      "Status",
      "Volume",
      "Capacity",
      "Access Modes",
      "StorageClass",
      "VolumeAttributesClass",
      "Age",
      "VolumeMode",
    ]);
    const bound = k({
      metadata: meta("test1"),
      spec: { volumeName: "my-volume", volumeMode: "Filesystem", storageClassName: "standard" },
      status: { phase: "Bound", accessModes: ["ReadOnlyMany", "ReadWriteOnce"], capacity: { storage: "4Gi" } },
    });
    expect(persistentVolumeClaimTablePrinter.cells(bound, NOW)).toEqual([
      "test1",
      "Bound",
      "my-volume",
      "4Gi",
      "RWO,ROX",
      "standard",
      "<unset>",
      "10m",
      "Filesystem",
    ]);
    const pending = k({
      metadata: meta("test2", {
        deletionTimestamp: TEN_MIN_AGO,
        annotations: { "volume.beta.kubernetes.io/storage-class": "beta" },
      }),
      spec: { volumeAttributesClassName: "gold", resources: { requests: { storage: "1Gi" } } },
      status: { phase: "Pending" },
    });
    expect(persistentVolumeClaimTablePrinter.cells(pending, NOW)).toEqual([
      "test2",
      "Terminating",
      "",
      "",
      "",
      "beta",
      "gold",
      "10m",
      "<unset>",
    ]);
  });
});

describe("printPersistentVolume (TestPrintPersistentVolume)", () => {
  it("capacity, modes, reclaim policy, status, claim, class, reason", () => {
    expect(names(persistentVolumeTablePrinter)).toEqual([
      "Name",
      "Capacity",
      "Access Modes",
      "Reclaim Policy",
      "Status",
      "Claim",
      "StorageClass",
      "VolumeAttributesClass",
      "Reason",
      "Age",
      "VolumeMode",
    ]);
    const pv = k({
      metadata: meta("test1"),
      spec: {
        capacity: { storage: "4Gi" },
        accessModes: ["ReadWriteOncePod", "ReadWriteMany"],
        persistentVolumeReclaimPolicy: "Retain",
        claimRef: { namespace: "default", name: "claim" },
        storageClassName: "fast",
      },
      status: { phase: "Failed", reason: "Recycler failed" },
    });
    expect(persistentVolumeTablePrinter.cells(pv, NOW)).toEqual([
      "test1",
      "4Gi",
      "RWX,RWOP",
      "Retain",
      "Failed",
      "default/claim",
      "fast",
      "<unset>",
      "Recycler failed",
      "10m",
      "<unset>",
    ]);
  });
});

describe("printStorageClass (TestPrintStorageClass)", () => {
  it("the default class is marked; reclaim policy and binding mode default", () => {
    expect(names(storageClassTablePrinter)).toEqual([
      "Name",
      "Provisioner",
      "ReclaimPolicy",
      "VolumeBindingMode",
      "AllowVolumeExpansion",
      "Age",
    ]);
    const sc = k({
      metadata: meta("sc1", { annotations: { "storageclass.kubernetes.io/is-default-class": "true" } }),
      provisioner: "kubernetes.io/glusterfs",
    });
    expect(storageClassTablePrinter.cells(sc, NOW)).toEqual([
      "sc1 (default)",
      "kubernetes.io/glusterfs",
      "Delete",
      "Immediate",
      false,
      "10m",
    ]);
    const sc2 = k({
      metadata: meta("sc2"),
      provisioner: "kubernetes.io/nfs",
      reclaimPolicy: "Retain",
      volumeBindingMode: "WaitForFirstConsumer",
      allowVolumeExpansion: true,
    });
    expect(storageClassTablePrinter.cells(sc2, NOW)).toEqual([
      "sc2",
      "kubernetes.io/nfs",
      "Retain",
      "WaitForFirstConsumer",
      true,
      "10m",
    ]);
  });
});

describe("printServiceAccount (TestPrintServiceAccount) and printSecret (TestPrintSecret)", () => {
  it("a service account counts its secrets", () => {
    expect(names(serviceAccountTablePrinter)).toEqual(["Name", "Secrets", "Age"]);
    const sa = k({ metadata: meta("sa1"), secrets: [{ name: "s1" }, { name: "s2" }] });
    expect(serviceAccountTablePrinter.cells(sa, NOW)).toEqual(["sa1", 2, "10m"]);
  });
  it("a secret shows its type and how many data entries it has", () => {
    expect(names(secretTablePrinter)).toEqual(["Name", "Type", "Data", "Age"]);
    const s = k({ metadata: meta("s1"), type: "kubernetes.io/tls", data: { "tls.crt": "", "tls.key": "" } });
    expect(secretTablePrinter.cells(s, NOW)).toEqual(["s1", "kubernetes.io/tls", 2, "10m"]);
  });
});

describe("tablePrinterFor: the new printers by group and resource", () => {
  it.each([
    ["autoscaling", "horizontalpodautoscalers", horizontalPodAutoscalerTablePrinter],
    ["policy", "poddisruptionbudgets", podDisruptionBudgetTablePrinter],
    ["networking.k8s.io", "ingresses", ingressTablePrinter],
    ["scheduling.k8s.io", "priorityclasses", priorityClassTablePrinter],
    ["", "resourcequotas", resourceQuotaTablePrinter],
    ["", "persistentvolumeclaims", persistentVolumeClaimTablePrinter],
    ["", "persistentvolumes", persistentVolumeTablePrinter],
    ["storage.k8s.io", "storageclasses", storageClassTablePrinter],
    ["", "serviceaccounts", serviceAccountTablePrinter],
    ["", "secrets", secretTablePrinter],
  ])("%s/%s", (group, resource, printer) => {
    expect(tablePrinterFor(group, resource)).toBe(printer);
  });
});
