import { isNotFound } from "@informer-ts/apimachinery";
import type { ResourceEventHandlerRegistration, SharedIndexInformer } from "@informer-ts/cache";
import { type KubeClient, type Pod, resources } from "@informer-ts/client";
import type { Clock, Rand, Timer } from "@informer-ts/clock";
import type { EventRecorder, ObjectReference } from "@informer-ts/controller";
import { type Logger, safeLog } from "@informer-ts/instrumentation";
import { type Condition, keyOf, rfc3339, withCondition } from "../internal/pod-util.js";
import type { NodePool } from "../nodes/node-pool.js";
import { type AdmissionRejection, admissionRejection, awaitsAdmission } from "./admission.js";
import type { Stage, StageContainers, StageNext } from "./stage.js";
import { hostFilePath, matchesStageSelector, valueAt } from "./stage-selector.js";

/** Options of a {@link PodLifecycle}. */
export interface PodLifecycleOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly rand: Rand;
  readonly logger: Logger;
  readonly pods: SharedIndexInformer<Pod>;
  readonly nodes: NodePool;
  readonly stages: readonly Stage[];
  /** Where stage events go (`source.component: kubelet`); none when absent. */
  readonly recorder?: EventRecorder;
  /**
   * The recorder of one node's kubelet (`source.host` that node, as `reportingInstance`); used instead of `recorder`
   * when given.
   */
  readonly nodeRecorder?: (node: string) => EventRecorder | undefined;
}

interface Pending {
  readonly stage: Stage;
  readonly timer: Timer;
}

interface ContainerStatus {
  name: string;
  image?: string;
  imageID?: string;
  containerID?: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  state: Record<string, unknown>;
  lastState?: Record<string, unknown>;
}

/** What {@link PodLifecycle.stats} counts. */
export interface PodLifecycleStats {
  /** Stage steps applied, by stage name. */
  readonly applied: Readonly<Record<string, number>>;
  /** Writes that failed (a conflict is retried when the pod changes). */
  readonly writeErrors: number;
  /** Pods waiting for a stage to fire now. */
  readonly pending: number;
}

/**
 * The pod half of the kubelet stand-in, kwok-style: for every pod bound to a live node of the {@link NodePool}, the
 * first matching {@link Stage} (weighted draw among several) is armed on the clock for its delay; when it fires and the
 * pod still matches, its step is written — the status through `pods/status` (phase, conditions with
 * `lastTransitionTime`, container statuses with restarts, host and pod IPs, start time), a deletion with grace period
 * 0, an Event — and the pod's next change arms the next stage. A pod whose node fails keeps its state (nothing fires)
 * until the node recovers. Write errors are logged; a conflict is retried when the informer delivers the newer pod.
 * Before its first stage a pod is admitted ({@link admissionRejection}): one whose host ports an earlier pod of the
 * node binds is rejected (`Failed`, reason `NodePorts`) and no stage applies to it.
 *
 * Differences from kwok: steps are data ({@link StageNext}) rather than Go templates; one process serves every node.
 */
export class PodLifecycle {
  private readonly pending = new Map<string, Pending>();
  private readonly applied: Record<string, number> = {};
  private writeErrors = 0;
  private readonly podIPs = new Map<string, number>();
  /** Per node: the images pulled there. */
  private readonly images = new Map<string, Set<string>>();
  /** Pods (by UID) whose containers were told to stop (`Killing` recorded). */
  private readonly killed = new Set<string>();
  /** Per node: the files containers left there ({@link StageNext.writeHostFile}). */
  private readonly hostFiles = new Map<string, Set<string>>();

  constructor(private readonly o: PodLifecycleOptions) {}

  /** Counters of the run so far. */
  stats(): PodLifecycleStats {
    return { applied: { ...this.applied }, writeErrors: this.writeErrors, pending: this.pending.size };
  }

  /** Handles pods until `signal` aborts; then every armed stage is dropped. */
  async run(signal: AbortSignal): Promise<void> {
    const { pods, nodes } = this.o;
    const reg: ResourceEventHandlerRegistration = pods.addEventHandler({
      onAdd: (p) => this.evaluate(p),
      onUpdate: (_o, p) => this.evaluate(p),
      onDelete: (p) => {
        const obj = (p as { obj?: Pod }).obj ?? (p as Pod);
        this.cancel(keyOf(obj));
        this.killed.delete(obj.metadata?.uid ?? "");
      },
    });
    const off = nodes.onChange((name) => {
      for (const p of pods.getIndexer().list()) if (p.spec?.nodeName === name) this.evaluate(p);
    });
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    off();
    await pods.removeEventHandler(reg);
    for (const p of this.pending.values()) p.timer.stop();
    this.pending.clear();
  }

  private cancel(key: string): void {
    const p = this.pending.get(key);
    if (p === undefined) return;
    p.timer.stop();
    this.pending.delete(key);
  }

  /** Arms the stage that applies to `pod` now (keeping an armed stage that still matches), or none. */
  private evaluate(pod: Pod): void {
    const key = keyOf(pod);
    const node = pod.spec?.nodeName;
    if (node === undefined || node === "" || !this.o.nodes.alive(node)) {
      this.cancel(key);
      return;
    }
    if (awaitsAdmission(pod)) {
      const onNode = () =>
        this.o.pods
          .getIndexer()
          .list()
          .filter((p) => p.spec?.nodeName === node);
      const rejection = admissionRejection(pod, onNode);
      if (rejection !== undefined) {
        this.cancel(key);
        void this.reject(pod, rejection);
        return;
      }
    }
    if (pod.metadata?.deletionTimestamp != null) this.recordKilling(pod);
    const armed = this.pending.get(key);
    const files = this.hostFiles.get(node);
    if (armed !== undefined && matchesStageSelector(pod, armed.stage.selector, files)) return;
    this.cancel(key);
    const stage = this.pick(this.o.stages.filter((s) => matchesStageSelector(pod, s.selector, files)));
    if (stage === undefined) return;
    const { clock, rand } = this.o;
    let delay = (stage.delay?.durationMs ?? 0) + (stage.delay?.jitterMs ?? 0) * rand.float();
    const until = stage.delay?.untilField;
    const own = intAt(pod, stage.delay?.durationMsFrom);
    if (own !== undefined) delay = Math.max(0, own);
    else if (until !== undefined) {
      const t = Date.parse(String(valueAt(pod, until) ?? ""));
      if (Number.isFinite(t)) delay = Math.max(delay, t - clock.now());
    }
    const probeScale = stage.delay?.readinessProbeScale;
    if (probeScale !== undefined) {
      const t = readinessProbeStartMs(pod, probeScale);
      if (t !== undefined) delay = Math.max(delay, t - clock.now());
    }
    const timer = clock.afterFunc(Math.round(delay), () => {
      this.pending.delete(key);
      void this.fire(key, stage);
    });
    this.pending.set(key, { stage, timer });
  }

  /** `rejectPod`: the pod's status `Failed` with the rejection's reason and message, and a warning event. */
  private async reject(pod: Pod, r: AdmissionRejection): Promise<void> {
    this.recorderOf(pod)?.event(pod, "Warning", r.reason, r.message);
    try {
      await this.o.client.updateStatus(resources.pods, {
        ...pod,
        status: { ...pod.status, phase: "Failed", reason: r.reason, message: r.message },
      } as Pod);
      this.applied["admission-rejected"] = (this.applied["admission-rejected"] ?? 0) + 1;
    } catch (err) {
      if (isNotFound(err)) return;
      this.writeErrors++;
      safeLog(this.o.logger, "debug", "pod rejection write failed", { pod: keyOf(pod), err });
    }
  }

  /** The recorder of the kubelet of `pod`'s node. */
  private recorderOf(pod: Pod): EventRecorder | undefined {
    const node = this.o.nodeRecorder;
    return node !== undefined ? node(pod.spec?.nodeName ?? "") : this.o.recorder;
  }

  /**
   * `killContainer`'s event, once per pod as its deletion reaches the kubelet: `Killing` (`Stopping container c`) for
   * each running container.
   */
  private recordKilling(pod: Pod): void {
    const uid = pod.metadata?.uid ?? "";
    const recorder = this.recorderOf(pod);
    if (recorder === undefined || this.killed.has(uid)) return;
    this.killed.add(uid);
    for (const cs of (pod.status?.containerStatuses ?? []) as ContainerStatus[]) {
      if (cs.state?.running == null) continue;
      recorder.event(containerRef(pod, cs.name), "Normal", "Killing", `Stopping container ${cs.name}`);
    }
  }

  /** The kubelet's events as it starts each container of `pod` (see {@link StageNext.containerEvents}). */
  private recordContainerStart(pod: Pod): void {
    const recorder = this.recorderOf(pod);
    if (recorder === undefined) return;
    const node = pod.spec?.nodeName ?? "";
    const pulled = this.images.get(node) ?? new Set<string>();
    this.images.set(node, pulled);
    for (const c of pod.spec?.containers ?? []) {
      const ref = containerRef(pod, c.name);
      const image = c.image ?? "";
      if (pullPolicyOf(c) === "Always" || (pullPolicyOf(c) === "IfNotPresent" && !pulled.has(image))) {
        recorder.event(ref, "Normal", "Pulling", `Pulling image ${JSON.stringify(image)}`);
        recorder.event(
          ref,
          "Normal",
          "Pulled",
          `Successfully pulled image ${JSON.stringify(image)} in 0s (0s including waiting)`,
        );
        pulled.add(image);
      } else {
        recorder.event(ref, "Normal", "Pulled", `Container image ${JSON.stringify(image)} already present on machine`);
      }
      recorder.event(ref, "Normal", "Created", `Created container: ${c.name}`);
      recorder.event(ref, "Normal", "Started", `Started container ${c.name}`);
    }
  }

  private pick(matching: readonly Stage[]): Stage | undefined {
    if (matching.length <= 1) return matching[0];
    const total = matching.reduce((n, s) => n + (s.weight ?? 1), 0);
    let r = this.o.rand.float() * total;
    for (const s of matching) {
      r -= s.weight ?? 1;
      if (r < 0) return s;
    }
    return matching[matching.length - 1];
  }

  private async fire(key: string, stage: Stage): Promise<void> {
    const pod = this.o.pods.getIndexer().getByKey(key);
    if (pod === undefined || !matchesStageSelector(pod, stage.selector, this.hostFiles.get(pod.spec?.nodeName ?? ""))) {
      if (pod !== undefined) this.evaluate(pod);
      return;
    }
    const node = pod.spec?.nodeName ?? "";
    if (!this.o.nodes.alive(node)) return;
    const p = stage.failureProbability ?? 0;
    const step = p > 0 && stage.failure !== undefined && this.o.rand.float() < p ? stage.failure : stage.next;
    try {
      await this.apply(pod, step);
      this.applied[stage.name] = (this.applied[stage.name] ?? 0) + 1;
    } catch (err) {
      if (isNotFound(err)) return;
      this.writeErrors++;
      safeLog(this.o.logger, "debug", "pod stage write failed", { pod: key, stage: stage.name, err });
      const latest = this.o.pods.getIndexer().getByKey(key);
      // A conflict: the newer pod arms the next stage when it arrives; re-arm now in case it already did.
      if (latest !== undefined && this.pending.get(key) === undefined) this.evaluate(latest);
    }
  }

  private async apply(pod: Pod, step: StageNext): Promise<void> {
    const { client, clock } = this.o;
    const ns = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    if (step.event !== undefined)
      this.recorderOf(pod)?.event(pod, step.event.type, step.event.reason, step.event.message);
    if (step.containerEvents === true && step.containers?.state === "running") this.recordContainerStart(pod);
    if (step.writeHostFile !== undefined) {
      const node = pod.spec?.nodeName ?? "";
      const files = this.hostFiles.get(node) ?? new Set<string>();
      this.hostFiles.set(node, files);
      files.add(hostFilePath(pod, step.writeHostFile));
    }
    if (step.delete === true) {
      const phase = pod.status?.phase;
      if (
        step.terminalStatusFirst === true &&
        phase !== "Succeeded" &&
        phase !== "Failed" &&
        (pod.metadata?.finalizers ?? []).length > 0
      ) {
        await this.apply(pod, {
          phase: "Failed",
          conditions: { Ready: "False", ContainersReady: "False" },
          containers: { state: "terminated", reason: "Error", exitCode: 137 },
        });
        // The informer's newer pod arms pod-delete again; the delete follows then.
        return;
      }
      await client.delete(resources.pods, name, { namespace: ns, gracePeriodSeconds: 0 });
      return;
    }
    const now = rfc3339(clock.now());
    const status = { ...(pod.status ?? {}) } as Record<string, unknown> & { conditions?: Condition[] };
    if (step.phase !== undefined) status.phase = step.phase;
    let conditions = (status.conditions ?? []) as Condition[];
    for (const [type, s] of Object.entries(step.conditions ?? {})) {
      conditions = withCondition(conditions, { type, status: s, lastProbeTime: null }, now).conditions;
    }
    status.conditions = conditions;
    const readyNow = conditions.find((c) => c.type === "Ready")?.status === "True";
    if (step.containers !== undefined) {
      const c = step.containers;
      const exitCode = exitCodeOf(pod, c);
      const old = (status.containerStatuses ?? []) as ContainerStatus[];
      status.containerStatuses = (pod.spec?.containers ?? []).map((spec, i): ContainerStatus => {
        const prev = old.find((x) => x.name === spec.name);
        const state: Record<string, unknown> =
          c.state === "waiting"
            ? { waiting: { reason: c.reason ?? "ContainerCreating" } }
            : c.state === "running"
              ? { running: { startedAt: now } }
              : {
                  terminated: {
                    exitCode,
                    reason: c.reason ?? (exitCode === 0 ? "Completed" : "Error"),
                    startedAt: (prev?.state.running as { startedAt?: string } | undefined)?.startedAt ?? now,
                    finishedAt: now,
                    containerID: `containerd://${name}-${i}`,
                  },
                };
        return {
          name: spec.name,
          image: spec.image ?? "",
          imageID: `docker.io/library/${spec.image ?? ""}`,
          ...(c.state !== "waiting" && { containerID: `containerd://${name}-${i}` }),
          ready: c.ready ?? (c.state === "running" && readyNow),
          started: c.state === "running",
          restartCount: (prev?.restartCount ?? 0) + (c.restart === true ? 1 : 0),
          state,
          ...(c.restart === true && prev !== undefined
            ? { lastState: prev.state }
            : prev?.lastState !== undefined && { lastState: prev.lastState }),
        };
      });
    }
    if (step.assignIPs === true) {
      const hostIP = this.o.nodes.ipOf(pod.spec?.nodeName ?? "") ?? "";
      status.hostIP = hostIP;
      status.hostIPs = [{ ip: hostIP }];
      const podIP = this.nextPodIP(pod.spec?.nodeName ?? "");
      status.podIP = podIP;
      status.podIPs = [{ ip: podIP }];
      status.startTime ??= now;
    }
    await client.updateStatus(resources.pods, { ...pod, status } as Pod);
  }

  private nextPodIP(node: string): string {
    const n = (this.podIPs.get(node) ?? 1) + 1;
    this.podIPs.set(node, n);
    const i = this.o.nodes.indexOf(node);
    return `10.${128 + ((i >> 8) & 127)}.${i & 255}.${n % 254}`;
  }
}

/**
 * The exit code a terminating step gives: the integer at `exitCodeFrom` in the pod (an annotation such as
 * `sim-cluster/exit-code`) when it is one, else `exitCode`, else 0.
 */
function exitCodeOf(pod: Pod, c: StageContainers): number {
  return intAt(pod, c.exitCodeFrom) ?? c.exitCode ?? 0;
}

/** The integer at `path` in the pod (a number, or text of one), else undefined. */
function intAt(pod: Pod, path: string | undefined): number | undefined {
  if (path === undefined) return undefined;
  const v = valueAt(pod, path);
  const n = typeof v === "number" ? v : typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
  return Number.isInteger(n) ? n : undefined;
}

/**
 * When the pod's readiness probes may first succeed (`prober.worker` waits `initialDelaySeconds` after the
 * container started): the latest, over containers with a `readinessProbe`, of `state.running.startedAt` plus
 * `initialDelaySeconds · scale` seconds; undefined when no running container has a probe.
 */
function readinessProbeStartMs(pod: Pod, scale: number): number | undefined {
  let at: number | undefined;
  const statuses = (pod.status?.containerStatuses ?? []) as ContainerStatus[];
  for (const c of pod.spec?.containers ?? []) {
    const probe = (c as { readinessProbe?: { initialDelaySeconds?: number } }).readinessProbe;
    if (probe == null) continue;
    const started = (statuses.find((s) => s.name === c.name)?.state.running as { startedAt?: string } | undefined)
      ?.startedAt;
    const t = Date.parse(started ?? "");
    if (!Number.isFinite(t)) continue;
    const ready = t + (probe.initialDelaySeconds ?? 0) * 1000 * scale;
    at = at === undefined ? ready : Math.max(at, ready);
  }
  return at;
}

/** A reference to one container of `pod` (`spec.containers{name}`), as the kubelet's container events carry. */
function containerRef(pod: Pod, container: string): ObjectReference {
  const m = pod.metadata;
  return {
    kind: "Pod",
    apiVersion: "v1",
    ...(m?.namespace !== undefined && { namespace: m.namespace }),
    name: m?.name ?? "",
    ...(m?.uid !== undefined && { uid: m.uid }),
    ...(m?.resourceVersion !== undefined && { resourceVersion: m.resourceVersion }),
    fieldPath: `spec.containers{${container}}`,
  };
}

/** `imagePullPolicy`, or its default: `Always` for an image tagged `:latest` or untagged (no digest), else `IfNotPresent`. */
function pullPolicyOf(c: { image?: string; imagePullPolicy?: string }): string {
  if (c.imagePullPolicy !== undefined && c.imagePullPolicy !== "") return c.imagePullPolicy;
  const image = c.image ?? "";
  if (image.includes("@")) return "IfNotPresent";
  const last = image.slice(image.lastIndexOf("/") + 1);
  const tag = last.includes(":") ? last.slice(last.indexOf(":") + 1) : "";
  return tag === "" || tag === "latest" ? "Always" : "IfNotPresent";
}
