import type { KubeObject } from "@informer-ts/apimachinery";
import { hpaV1ToV2 } from "../engine/hpa-conversion.js";
import { formatLabelSelector } from "../engine/index.js";
import { humanDuration, type TableColumnDefinition, type TablePrinter } from "./table.js";

// The kind-specific printers of kube-apiserver (`pkg/printers/internalversion/printers.go`), as the server runs them
// (`Wide: true`: every column, the priority-1 ones too, as `kubectl get -o wide` shows them).

const col = (name: string, type: string, description: string, priority = 0, format = ""): TableColumnDefinition => ({
  name,
  type,
  format,
  description,
  priority,
});

const NAME = col("Name", "string", "Name must be unique within a namespace.", 0, "name");
const AGE = col("Age", "string", "Time since the object was created (CreationTimestamp).");

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {};
}

function arr(v: unknown): Obj[] {
  return Array.isArray(v) ? (v as unknown[]).map(obj) : [];
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function num(v: unknown): number {
  return typeof v === "number" ? v : 0;
}

/** `translateTimestampSince`: the human age of an RFC 3339 time, `<unknown>` when absent. */
function since(ts: unknown, now: number): string {
  const t = typeof ts === "string" && ts !== "" ? Date.parse(ts) : Number.NaN;
  return Number.isNaN(t) ? "<unknown>" : humanDuration(now - t);
}

function age(o: KubeObject, now: number): string {
  return since(o.metadata?.creationTimestamp, now);
}

function orNone(s: string): string {
  return s === "" ? "<none>" : s;
}

/** `layoutContainerCells`: container names and images joined with commas. */
function containerCells(podSpec: Obj): [string, string] {
  const cs = arr(podSpec.containers);
  return [cs.map((c) => str(c.name)).join(","), cs.map((c) => str(c.image)).join(",")];
}

function selectorCell(sel: unknown): string {
  return formatLabelSelector(sel) ?? "<none>";
}

function hasCondition(conditions: unknown, type: string): boolean {
  return arr(conditions).some((c) => c.type === type && c.status === "True");
}

/** `printPod`: NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES. */
export const podTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    col("Status", "string", "The aggregate status of the containers in this pod."),
    col(
      "Restarts",
      "string",
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    ),
    AGE,
    col("IP", "string", "IP address allocated to the pod. Routable at least within the cluster.", 1),
    col("Node", "string", "The node the pod is bound to (spec.nodeName).", 1),
    col("Nominated Node", "string", "The node the scheduler nominated for the pod (status.nominatedNodeName).", 1),
    col("Readiness Gates", "string", "The readiness gates of the pod and how many are true.", 1),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const containers = arr(spec.containers);
    let reason = str(status.reason) !== "" ? str(status.reason) : str(status.phase);
    let restarts = 0;
    let lastRestart = Number.NaN;
    let ready = 0;
    let hasRunning = false;
    const statuses = arr(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      restarts += num(c.restartCount);
      const last = obj(obj(c.lastState).terminated);
      const finished = Date.parse(str(last.finishedAt));
      if (!Number.isNaN(finished) && !(finished <= lastRestart)) lastRestart = finished;
      const state = obj(c.state);
      const waiting = obj(state.waiting);
      const terminated = obj(state.terminated);
      if (str(waiting.reason) !== "") reason = str(waiting.reason);
      else if (str(terminated.reason) !== "") reason = str(terminated.reason);
      else if (state.terminated !== undefined) {
        reason =
          num(terminated.signal) !== 0 ? `Signal:${num(terminated.signal)}` : `ExitCode:${num(terminated.exitCode)}`;
      } else if (c.ready === true && state.running !== undefined) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === "Completed" && hasRunning) {
      reason = hasCondition(status.conditions, "Ready") ? "Running" : "NotReady";
    }
    const phase = str(status.phase);
    if (o.metadata?.deletionTimestamp !== undefined) {
      if (str(status.reason) === "NodeLost") reason = "Unknown";
      else if (phase !== "Succeeded" && phase !== "Failed") reason = "Terminating";
    }
    const restartsCell = Number.isNaN(lastRestart)
      ? String(restarts)
      : `${restarts} (${humanDuration(now - lastRestart)} ago)`;
    const gates = arr(spec.readinessGates);
    let gatesCell = "<none>";
    if (gates.length > 0) {
      const trueGates = gates.filter((g) => hasCondition(status.conditions, str(g.conditionType))).length;
      gatesCell = `${trueGates}/${gates.length}`;
    }
    return [
      o.metadata?.name ?? "",
      `${ready}/${containers.length}`,
      reason,
      restartsCell,
      age(o, now),
      orNone(str(status.podIP)),
      orNone(str(spec.nodeName)),
      orNone(str(status.nominatedNodeName)),
      gatesCell,
    ];
  },
};

const CONTAINERS = col("Containers", "string", "Names of each container in the template.", 1);
const IMAGES = col("Images", "string", "Images referenced by each container in the template.", 1);
const SELECTOR = col("Selector", "string", "The label selector of the object's pods.", 1);

/** `printDeployment`: NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR. */
export const deploymentTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Ready", "string", "Number of the pod with ready state"),
    col(
      "Up-to-date",
      "integer",
      "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
    ),
    col(
      "Available",
      "integer",
      "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
    ),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const [names, images] = containerCells(obj(obj(spec.template).spec));
    return [
      o.metadata?.name ?? "",
      `${num(status.readyReplicas)}/${num(spec.replicas)}`,
      num(status.updatedReplicas),
      num(status.availableReplicas),
      age(o, now),
      names,
      images,
      selectorCell(spec.selector),
    ];
  },
};

/** `printReplicaSet`: NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR. */
export const replicaSetTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Desired", "integer", "Replicas is the number of desired pods."),
    col("Current", "integer", "Replicas is the most recently observed number of replicas."),
    col("Ready", "integer", "The number of ready replicas for this replica set."),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const [names, images] = containerCells(obj(obj(spec.template).spec));
    return [
      o.metadata?.name ?? "",
      num(spec.replicas),
      num(status.replicas),
      num(status.readyReplicas),
      age(o, now),
      names,
      images,
      selectorCell(spec.selector),
    ];
  },
};

function serviceExternalIP(spec: Obj, status: Obj): string {
  const type = str(spec.type) === "" ? "ClusterIP" : str(spec.type);
  const external = Array.isArray(spec.externalIPs) ? (spec.externalIPs as string[]) : [];
  switch (type) {
    case "ClusterIP":
    case "NodePort":
      return external.length > 0 ? external.join(",") : "<none>";
    case "LoadBalancer": {
      const ingress = arr(obj(status.loadBalancer).ingress).map((i) => str(i.ip) || str(i.hostname));
      const all = [...ingress.filter((s) => s !== ""), ...external];
      return all.length > 0 ? all.join(",") : "<pending>";
    }
    case "ExternalName":
      return str(spec.externalName);
    default:
      return "<unknown>";
  }
}

/** `printService`: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR. */
export const serviceTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Type", "string", "The type of the service: ClusterIP, NodePort, LoadBalancer or ExternalName."),
    col("Cluster-IP", "string", "The IP address of the service, usually assigned randomly."),
    col("External-IP", "string", "The external addresses of the service."),
    col("Port(s)", "string", "The ports exposed by the service."),
    AGE,
    col("Selector", "string", "Route service traffic to pods with label keys and values matching this selector.", 1),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const ports = arr(spec.ports)
      .map((p) => {
        const proto = str(p.protocol) === "" ? "TCP" : str(p.protocol);
        return num(p.nodePort) > 0 ? `${num(p.port)}:${num(p.nodePort)}/${proto}` : `${num(p.port)}/${proto}`;
      })
      .join(",");
    const sel = obj(spec.selector);
    const selector = Object.keys(sel).length === 0 ? "<none>" : (formatLabelSelector({ matchLabels: sel }) ?? "<none>");
    return [
      o.metadata?.name ?? "",
      str(spec.type) === "" ? "ClusterIP" : str(spec.type),
      orNone(str(spec.clusterIP)),
      serviceExternalIP(spec, obj(o.status)),
      ports === "" ? "<none>" : ports,
      age(o, now),
      selector,
    ];
  },
};

/** `printNode`: NAME STATUS ROLES AGE VERSION INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME. */
export const nodeTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Status", "string", "The status of the node"),
    col("Roles", "string", "The roles of the node"),
    AGE,
    col("Version", "string", "Kubelet Version reported by the node."),
    col(
      "Internal-IP",
      "string",
      "List of addresses reachable to the node. Queried from cloud provider, if available.",
      1,
    ),
    col(
      "External-IP",
      "string",
      "List of addresses reachable to the node. Queried from cloud provider, if available.",
      1,
    ),
    col(
      "OS-Image",
      "string",
      "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
      1,
    ),
    col(
      "Kernel-Version",
      "string",
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      1,
    ),
    col(
      "Container-Runtime",
      "string",
      "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
      1,
    ),
  ],
  cells(o, now) {
    const status = obj(o.status);
    const info = obj(status.nodeInfo);
    const ready = arr(status.conditions).find((c) => c.type === "Ready");
    const states = [ready === undefined ? "Unknown" : ready.status === "True" ? "Ready" : "NotReady"];
    if (obj(o.spec).unschedulable === true) states.push("SchedulingDisabled");
    const roles = Object.keys(o.metadata?.labels ?? {})
      .flatMap((k) => {
        if (k.startsWith("node-role.kubernetes.io/")) return [k.slice("node-role.kubernetes.io/".length)];
        if (k === "kubernetes.io/role") return [String(o.metadata?.labels?.[k] ?? "")];
        return [];
      })
      .filter((r) => r !== "")
      .sort();
    const address = (type: string) =>
      orNone(
        arr(status.addresses)
          .filter((a) => a.type === type)
          .map((a) => str(a.address))[0] ?? "",
      );
    return [
      o.metadata?.name ?? "",
      states.join(","),
      roles.length > 0 ? [...new Set(roles)].join(",") : "<none>",
      age(o, now),
      str(info.kubeletVersion),
      address("InternalIP"),
      address("ExternalIP"),
      str(info.osImage) === "" ? "<unknown>" : str(info.osImage),
      str(info.kernelVersion) === "" ? "<unknown>" : str(info.kernelVersion),
      str(info.containerRuntimeVersion) === "" ? "<unknown>" : str(info.containerRuntimeVersion),
    ];
  },
};

/** `formatEventSource`: `component, host`, or the reporting controller and instance of an events.k8s.io Event. */
function eventSource(o: Obj): string {
  const source = obj(o.source);
  const component = str(source.component) !== "" ? str(source.component) : str(o.reportingController);
  const host = str(source.host) !== "" ? str(source.host) : str(o.reportingInstance);
  return host === "" ? component : `${component}, ${host}`;
}

/** An `events.k8s.io/v1` Event read with the core field names (the fields its conversion maps). */
function asCoreEvent(e: Obj): Obj {
  if (e.involvedObject !== undefined || e.regarding === undefined) return e;
  return {
    ...e,
    involvedObject: e.regarding,
    message: e.note,
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    count: e.deprecatedCount,
    source: e.deprecatedSource,
  };
}

/** `printEvent`: LAST SEEN TYPE REASON OBJECT SUBOBJECT SOURCE MESSAGE FIRST SEEN COUNT NAME. */
export const eventTablePrinter: TablePrinter = {
  columns: [
    col("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
    col("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
    col(
      "Reason",
      "string",
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    col("Object", "string", "The object that this event is about."),
    col("Subobject", "string", "The field of the object the event is about (involvedObject.fieldPath).", 1),
    col("Source", "string", "The component reporting this event. Should be a short machine understandable string.", 1),
    col("Message", "string", "A human-readable description of the status of this operation."),
    col(
      "First Seen",
      "string",
      "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
      1,
    ),
    col("Count", "string", "The number of times this event has occurred.", 1),
    col("Name", "string", "Name must be unique within a namespace.", 1, "name"),
  ],
  cells(o, now) {
    const e = asCoreEvent(o as unknown as Obj);
    const involved = obj(e.involvedObject);
    let first = since(e.firstTimestamp, now);
    if (str(e.firstTimestamp) === "") first = since(e.eventTime, now);
    let last = str(e.lastTimestamp) === "" ? first : since(e.lastTimestamp, now);
    let count = num(e.count);
    const series = e.series === undefined ? undefined : obj(e.series);
    if (series !== undefined) {
      last = since(series.lastObservedTime, now);
      count = num(series.count);
    } else if (count === 0) count = 1;
    const kind = str(involved.kind).toLowerCase();
    const target = str(involved.name) === "" ? kind : `${kind}/${str(involved.name)}`;
    return [
      last,
      str(e.type),
      str(e.reason),
      target,
      str(involved.fieldPath),
      eventSource(e),
      str(e.message).trim(),
      first,
      count,
      o.metadata?.name ?? "",
    ];
  },
};

/** `printJob`: NAME STATUS COMPLETIONS DURATION AGE CONTAINERS IMAGES SELECTOR. */
export const jobTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Status", "string", "Status of the job."),
    col("Completions", "string", "The completion status of the job: succeeded pods out of the desired completions."),
    col("Duration", "string", "Time required to complete the job."),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const succeeded = num(status.succeeded);
    let completions: string;
    if (typeof spec.completions === "number") completions = `${succeeded}/${spec.completions}`;
    else {
      const parallelism = num(spec.parallelism);
      completions = parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
    }
    const start = Date.parse(str(status.startTime));
    const end = Date.parse(str(status.completionTime));
    const duration = Number.isNaN(start) ? "" : humanDuration((Number.isNaN(end) ? now : end) - start);
    let state = "Running";
    if (hasCondition(status.conditions, "Complete")) state = "Complete";
    else if (hasCondition(status.conditions, "Failed")) state = "Failed";
    else if (o.metadata?.deletionTimestamp !== undefined) state = "Terminating";
    else if (hasCondition(status.conditions, "Suspended")) state = "Suspended";
    else if (hasCondition(status.conditions, "FailureTarget")) state = "FailureTarget";
    else if (hasCondition(status.conditions, "SuccessCriteriaMet")) state = "SuccessCriteriaMet";
    const [names, images] = containerCells(obj(obj(spec.template).spec));
    return [
      o.metadata?.name ?? "",
      state,
      completions,
      duration,
      age(o, now),
      names,
      images,
      selectorCell(spec.selector),
    ];
  },
};

/** `printBoolPtr`: `<unset>` for an absent pointer, else Go's `True`/`False`. */
function boolPtrCell(v: unknown): string {
  if (typeof v !== "boolean") return "<unset>";
  return v ? "True" : "False";
}

/** `labels.FormatLabels`: `k=v` pairs in key order joined with commas, `<none>` when empty. */
function labelsCell(labels: unknown): string {
  const entries = Object.entries(obj(labels)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return orNone(entries.map(([key, v]) => `${key}=${str(v)}`).join(","));
}

/** `printCronJob`: NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE CONTAINERS IMAGES SELECTOR. */
export const cronJobTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Schedule", "string", "The schedule in Cron format."),
    col("Timezone", "string", "The time zone name for the given schedule."),
    col("Suspend", "boolean", "Whether the controller suspends subsequent executions."),
    col("Active", "integer", "The currently running jobs."),
    col("Last Schedule", "string", "When the job was last successfully scheduled."),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const jobSpec = obj(obj(spec.jobTemplate).spec);
    const lastSchedule = status.lastScheduleTime === undefined ? "<none>" : since(status.lastScheduleTime, now);
    const [names, images] = containerCells(obj(obj(jobSpec.template).spec));
    return [
      o.metadata?.name ?? "",
      str(spec.schedule),
      typeof spec.timeZone === "string" ? spec.timeZone : "<none>",
      boolPtrCell(spec.suspend),
      arr(status.active).length,
      lastSchedule,
      age(o, now),
      names,
      images,
      selectorCell(jobSpec.selector),
    ];
  },
};

/** `printStatefulSet`: NAME READY AGE CONTAINERS IMAGES. */
export const statefulSetTablePrinter: TablePrinter = {
  columns: [NAME, col("Ready", "string", "Number of the pod with ready state"), AGE, CONTAINERS, IMAGES],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const [names, images] = containerCells(obj(obj(spec.template).spec));
    return [o.metadata?.name ?? "", `${num(status.readyReplicas)}/${num(spec.replicas)}`, age(o, now), names, images];
  },
};

/** `printDaemonSet`: NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE CONTAINERS IMAGES SELECTOR. */
export const daemonSetTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Desired", "integer", "The total number of nodes that should be running the daemon pod."),
    col("Current", "integer", "The number of nodes running at least one daemon pod that are supposed to."),
    col("Ready", "integer", "The number of nodes running the daemon pod with a Ready condition."),
    col("Up-to-date", "integer", "The number of nodes running the updated daemon pod."),
    col("Available", "integer", "The number of nodes running the daemon pod available for minReadySeconds."),
    col("Node Selector", "string", "The node labels the pods must match to be scheduled on a node."),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const podSpec = obj(obj(spec.template).spec);
    const [names, images] = containerCells(podSpec);
    return [
      o.metadata?.name ?? "",
      num(status.desiredNumberScheduled),
      num(status.currentNumberScheduled),
      num(status.numberReady),
      num(status.updatedNumberScheduled),
      num(status.numberAvailable),
      labelsCell(podSpec.nodeSelector),
      age(o, now),
      names,
      images,
      selectorCell(spec.selector),
    ];
  },
};

/** A `resource.Quantity`'s `String()` as JSON carries it (a string, or a number), `0` when absent. */
function quantity(v: unknown): string {
  if (typeof v === "string" && v !== "") return v;
  if (typeof v === "number") return String(v);
  return "0";
}

/** `metricTarget` of one HPA metric as `formatHPAMetrics` prints it (`cpu: 40%/80%`, `<unknown>/10`, `…/5 (avg)`). */
function hpaMetricCell(spec: Obj, status: Obj | undefined): string {
  const unknown = "<unknown>";
  const valueOrAvg = (src: Obj, cur: Obj | undefined): string => {
    const target = obj(src.target);
    const current = cur === undefined ? undefined : obj(cur.current);
    if (target.averageValue !== undefined) {
      const c = current?.averageValue !== undefined ? quantity(current.averageValue) : unknown;
      return `${c}/${quantity(target.averageValue)} (avg)`;
    }
    const c = current === undefined ? unknown : quantity(current.value);
    return `${c}/${quantity(target.value)}`;
  };
  const resource = (src: Obj, cur: Obj | undefined): string => {
    const target = obj(src.target);
    const current = cur === undefined ? undefined : obj(cur.current);
    if (target.averageValue !== undefined) {
      const c = current === undefined ? unknown : quantity(current.averageValue);
      return `${str(src.name)}: ${c}/${quantity(target.averageValue)}`;
    }
    const c = typeof current?.averageUtilization === "number" ? `${current.averageUtilization}%` : unknown;
    const t = typeof target.averageUtilization === "number" ? `${target.averageUtilization}%` : "<auto>";
    return `${str(src.name)}: ${c}/${t}`;
  };
  const part = (key: string): Obj | undefined =>
    status !== undefined && status[key] !== undefined ? obj(status[key]) : undefined;
  switch (spec.type) {
    case "External":
      return valueOrAvg(obj(spec.external), part("external"));
    case "Object":
      return valueOrAvg(obj(spec.object), part("object"));
    case "Pods": {
      const cur = part("pods");
      const c = cur === undefined ? unknown : quantity(obj(cur.current).averageValue);
      return `${c}/${quantity(obj(obj(spec.pods).target).averageValue)}`;
    }
    case "Resource":
      return resource(obj(spec.resource), part("resource"));
    case "ContainerResource":
      return resource(obj(spec.containerResource), part("containerResource"));
    default:
      return "<unknown type>";
  }
}

/** `formatHPAMetrics`: the first two metrics' `current/target`, then `+ N more...`; `<none>` without metrics. */
function hpaMetricsCell(specs: Obj[], statuses: Obj[]): string {
  if (specs.length === 0) return "<none>";
  const list = specs.map((m, i) => hpaMetricCell(m, statuses[i]));
  if (list.length <= 2) return list.join(", ");
  return `${list.slice(0, 2).join(", ")} + ${list.length - 2} more...`;
}

/**
 * `printHorizontalPodAutoscaler`: NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE, on the internal (v2-shaped)
 * object: an `autoscaling/v1` object is converted first, as the server converts to the internal version to print.
 */
export const horizontalPodAutoscalerTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Reference", "string", "scaleTargetRef points to the target resource to scale."),
    col(
      "Targets",
      "string",
      "metrics contains the specifications for which to use to calculate the desired replica count.",
    ),
    col(
      "MinPods",
      "string",
      "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.",
    ),
    col(
      "MaxPods",
      "string",
      "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.",
    ),
    col("Replicas", "string", "currentReplicas is current number of replicas of pods managed by this autoscaler."),
    AGE,
  ],
  cells(o, now) {
    const hpa = o.apiVersion === "autoscaling/v1" ? hpaV1ToV2(o) : o;
    const spec = obj(hpa.spec);
    const status = obj(hpa.status);
    const ref = obj(spec.scaleTargetRef);
    return [
      o.metadata?.name ?? "",
      `${str(ref.kind)}/${str(ref.name)}`,
      hpaMetricsCell(arr(spec.metrics), arr(status.currentMetrics)),
      typeof spec.minReplicas === "number" ? spec.minReplicas : "<unset>",
      num(spec.maxReplicas),
      num(status.currentReplicas),
      age(o, now),
    ];
  },
};

/** An `IntOrString` pointer as `printPodDisruptionBudget` shows it: `N/A` when absent. */
function intOrStringCell(v: unknown): string {
  return typeof v === "number" || typeof v === "string" ? String(v) : "N/A";
}

/** `printPodDisruptionBudget`: NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE. */
export const podDisruptionBudgetTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Min Available", "string", "The minimum number of pods that must be available."),
    col("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
    col("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
    AGE,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    return [
      o.metadata?.name ?? "",
      intOrStringCell(spec.minAvailable),
      intOrStringCell(spec.maxUnavailable),
      num(obj(o.status).disruptionsAllowed),
      age(o, now),
    ];
  },
};

/** `formatHosts`: the rules' hosts (`*` for none), at most 3 then `+ N more...`. */
function hostsCell(rules: Obj[]): string {
  const hosts = rules.map((r) => str(r.host)).filter((h) => h !== "");
  if (hosts.length === 0) return "*";
  if (hosts.length <= 3) return hosts.join(",");
  return `${hosts.slice(0, 3).join(",")} + ${hosts.length - 3} more...`;
}

/** `ingressLoadBalancerStatusStringer` (wide): the load balancer's IPs and hostnames joined with commas. */
function loadBalancerCell(status: Obj): string {
  return arr(obj(status.loadBalancer).ingress)
    .map((i) => (str(i.ip) !== "" ? str(i.ip) : str(i.hostname)))
    .filter((a) => a !== "")
    .join(",");
}

/** `printIngress`: NAME CLASS HOSTS ADDRESS PORTS AGE. */
export const ingressTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Class", "string", "The name of the IngressClass resource that should be used for this Ingress"),
    col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
    col("Address", "string", "Address is a list containing ingress points for the load-balancer"),
    col("Ports", "string", "Ports of TLS configurations that open"),
    AGE,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    return [
      o.metadata?.name ?? "",
      typeof spec.ingressClassName === "string" ? spec.ingressClassName : "<none>",
      hostsCell(arr(spec.rules)),
      loadBalancerCell(obj(o.status)),
      arr(spec.tls).length > 0 ? "80, 443" : "80",
      age(o, now),
    ];
  },
};

/** `printPriorityClass`: NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY. */
export const priorityClassTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Value", "integer", "value represents the integer value of this priority class."),
    col(
      "Global-Default",
      "boolean",
      "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.",
    ),
    AGE,
    col("PreemptionPolicy", "string", "preemptionPolicy is the Policy for preempting pods with lower priority."),
  ],
  cells(o, now) {
    const pc = o as Obj;
    return [o.metadata?.name ?? "", num(pc.value), pc.globalDefault === true, age(o, now), str(pc.preemptionPolicy)];
  },
};

/** `printResourceQuota`: NAME AGE REQUEST LIMIT — `resource: used/hard` per hard limit, `limits.*` in LIMIT. */
export const resourceQuotaTablePrinter: TablePrinter = {
  columns: [
    NAME,
    AGE,
    col("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
    col(
      "Limit",
      "string",
      "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
    ),
  ],
  cells(o, now) {
    const status = obj(o.status);
    const hard = obj(status.hard);
    const used = obj(status.used);
    const request: string[] = [];
    const limit: string[] = [];
    for (const name of Object.keys(hard).sort()) {
      const cell = `${name}: ${quantity(used[name])}/${quantity(hard[name])}`;
      (name.startsWith("limits.") ? limit : request).push(cell);
    }
    return [o.metadata?.name ?? "", age(o, now), request.join(", "), limit.join(", ")];
  },
};

/** `GetAccessModesAsString`: RWO, ROX, RWX, RWOP in that order, each once. */
function accessModesCell(modes: unknown): string {
  const given = Array.isArray(modes) ? modes : [];
  const short: ReadonlyArray<readonly [string, string]> = [
    ["ReadWriteOnce", "RWO"],
    ["ReadOnlyMany", "ROX"],
    ["ReadWriteMany", "RWX"],
    ["ReadWriteOncePod", "RWOP"],
  ];
  return short
    .filter(([mode]) => given.includes(mode))
    .map(([, s]) => s)
    .join(",");
}

const VOLUME_MODE = col("VolumeMode", "string", "volumeMode defines what type of volume is required by the claim.", 1);

/** `printPersistentVolumeClaim`: NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE VOLUMEMODE. */
export const persistentVolumeClaimTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Status", "string", "phase represents the current phase of PersistentVolumeClaim."),
    col("Volume", "string", "volumeName is the binding reference to the PersistentVolume backing this claim."),
    col("Capacity", "string", "capacity represents the actual resources of the underlying volume."),
    col("Access Modes", "string", "accessModes contains the actual access modes the volume backing the PVC has."),
    col("StorageClass", "string", "StorageClass of the pvc"),
    col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
    AGE,
    VOLUME_MODE,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const bound = str(spec.volumeName) !== "";
    const betaClass = o.metadata?.annotations?.["volume.beta.kubernetes.io/storage-class"];
    return [
      o.metadata?.name ?? "",
      o.metadata?.deletionTimestamp !== undefined ? "Terminating" : str(status.phase),
      str(spec.volumeName),
      bound ? quantity(obj(status.capacity).storage) : "",
      bound ? accessModesCell(status.accessModes) : "",
      betaClass ?? str(spec.storageClassName),
      str(spec.volumeAttributesClassName) !== "" ? str(spec.volumeAttributesClassName) : "<unset>",
      age(o, now),
      typeof spec.volumeMode === "string" ? spec.volumeMode : "<unset>",
    ];
  },
};

/** `printPersistentVolume`: NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE VOLUMEMODE. */
export const persistentVolumeTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Capacity", "string", "capacity is the description of the persistent volume's resources and capacity."),
    col("Access Modes", "string", "accessModes contains all ways the volume can be mounted."),
    col(
      "Reclaim Policy",
      "string",
      "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.",
    ),
    col("Status", "string", "phase indicates if a volume is available, bound to a claim, or released by a claim."),
    col(
      "Claim",
      "string",
      "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.",
    ),
    col("StorageClass", "string", "StorageClass of the pv"),
    col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
    col(
      "Reason",
      "string",
      "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
    ),
    AGE,
    VOLUME_MODE,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const claim =
      spec.claimRef === undefined ? "" : `${str(obj(spec.claimRef).namespace)}/${str(obj(spec.claimRef).name)}`;
    const betaClass = o.metadata?.annotations?.["volume.beta.kubernetes.io/storage-class"];
    return [
      o.metadata?.name ?? "",
      quantity(obj(spec.capacity).storage),
      accessModesCell(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      o.metadata?.deletionTimestamp !== undefined ? "Terminating" : str(status.phase),
      claim,
      betaClass ?? str(spec.storageClassName),
      str(spec.volumeAttributesClassName) !== "" ? str(spec.volumeAttributesClassName) : "<unset>",
      str(status.reason),
      age(o, now),
      typeof spec.volumeMode === "string" ? spec.volumeMode : "<unset>",
    ];
  },
};

/** `storageutil.IsDefaultAnnotation`: the GA or the beta is-default-class annotation is `"true"`. */
function isDefaultStorageClass(o: KubeObject): boolean {
  const a = o.metadata?.annotations ?? {};
  return (
    a["storageclass.kubernetes.io/is-default-class"] === "true" ||
    a["storageclass.beta.kubernetes.io/is-default-class"] === "true"
  );
}

/** `printStorageClass`: NAME (`(default)` marked) PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE. */
export const storageClassTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Provisioner", "string", "Indicates the type of the provisioner."),
    col(
      "ReclaimPolicy",
      "string",
      "Dynamically provisioned PersistentVolumes of this storage class are created with this reclaimPolicy. Defaults to Delete.",
    ),
    col(
      "VolumeBindingMode",
      "string",
      "VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound. When unset, VolumeBindingImmediate is used.",
    ),
    col("AllowVolumeExpansion", "string", "AllowVolumeExpansion shows whether the storage class allow volume expand."),
    AGE,
  ],
  cells(o, now) {
    const sc = o as Obj;
    const name = o.metadata?.name ?? "";
    return [
      isDefaultStorageClass(o) ? `${name} (default)` : name,
      str(sc.provisioner),
      typeof sc.reclaimPolicy === "string" ? sc.reclaimPolicy : "Delete",
      typeof sc.volumeBindingMode === "string" ? sc.volumeBindingMode : "Immediate",
      sc.allowVolumeExpansion === true,
      age(o, now),
    ];
  },
};

/** `printServiceAccount`: NAME SECRETS AGE. */
export const serviceAccountTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col(
      "Secrets",
      "string",
      "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
    ),
    AGE,
  ],
  cells(o, now) {
    return [o.metadata?.name ?? "", arr((o as Obj).secrets).length, age(o, now)];
  },
};

/** `printSecret`: NAME TYPE DATA AGE. */
export const secretTablePrinter: TablePrinter = {
  columns: [
    NAME,
    col("Type", "string", "The type of the secret"),
    col("Data", "string", "The number of entries in the data"),
    AGE,
  ],
  cells(o, now) {
    const s = o as Obj;
    return [o.metadata?.name ?? "", str(s.type), Object.keys(obj(s.data)).length, age(o, now)];
  },
};

/** The kind-specific printers by `<group>/<resource>` (core: `/pods`). */
export const KIND_TABLE_PRINTERS: ReadonlyMap<string, TablePrinter> = new Map([
  ["/pods", podTablePrinter],
  ["/services", serviceTablePrinter],
  ["/nodes", nodeTablePrinter],
  ["/events", eventTablePrinter],
  ["events.k8s.io/events", eventTablePrinter],
  ["apps/deployments", deploymentTablePrinter],
  ["apps/replicasets", replicaSetTablePrinter],
  ["apps/statefulsets", statefulSetTablePrinter],
  ["apps/daemonsets", daemonSetTablePrinter],
  ["batch/jobs", jobTablePrinter],
  ["batch/cronjobs", cronJobTablePrinter],
  ["autoscaling/horizontalpodautoscalers", horizontalPodAutoscalerTablePrinter],
  ["policy/poddisruptionbudgets", podDisruptionBudgetTablePrinter],
  ["networking.k8s.io/ingresses", ingressTablePrinter],
  ["scheduling.k8s.io/priorityclasses", priorityClassTablePrinter],
  ["/resourcequotas", resourceQuotaTablePrinter],
  ["/persistentvolumeclaims", persistentVolumeClaimTablePrinter],
  ["/persistentvolumes", persistentVolumeTablePrinter],
  ["storage.k8s.io/storageclasses", storageClassTablePrinter],
  ["/serviceaccounts", serviceAccountTablePrinter],
  ["/secrets", secretTablePrinter],
]);
