/**
 * One requirement of a {@link StageSelector} (kwok's `SelectorRequirement`): `key` is a path into the pod —
 * `.status.phase`, `.spec.restartPolicy`, `.metadata.deletionTimestamp`, `.metadata.labels.app` — or one of the
 * derived keys `.status.conditions.<Type>` (that condition's status) and `.status.containerStatuses.state` /
 * `.status.containerStatuses.reason` (the first container's state — `waiting`, `running`, `terminated` — and its
 * reason) and `.status.containerStatuses.restartCount` (the first container's restarts, 0 when unset). `In`/`NotIn` compare the value's text with `values` (an absent value is not in any list);
 * `Exists`/`DoesNotExist` test presence.
 */
export interface StageRequirement {
  readonly key: string;
  readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  readonly values?: readonly string[];
}

/** Which pods a {@link Stage} applies to (kwok's `StageSelector`): all requirements must hold. */
export interface StageSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchAnnotations?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly StageRequirement[];
  /**
   * A file on the pod's node — what a container left in a `hostPath` volume (a {@link StageNext.writeHostFile} step),
   * kept across the pods that node runs: `path`, with `$(VAR)` references expanded from the first container's
   * environment as the kubelet expands a command, must exist (`exists: true`) or be absent.
   */
  readonly hostFile?: { readonly path: string; readonly exists: boolean };
}

/** When a {@link Stage} fires after it starts to apply (kwok's `StageDelay`). */
export interface StageDelay {
  /** Base delay in milliseconds of virtual time. Default 0. */
  readonly durationMs?: number;
  /** Up to this many more milliseconds, drawn uniformly from the cluster's seeded `Rand`. Default 0. */
  readonly jitterMs?: number;
  /**
   * A timestamp field of the pod (`.metadata.deletionTimestamp`): the stage fires no earlier than that time (kwok's
   * `durationFrom`), so a graceful deletion lasts its grace period.
   */
  readonly untilField?: string;
  /**
   * A path into the pod (`.metadata.annotations.sim-cluster/termination-delay-ms`) whose integer value, in
   * milliseconds, replaces `durationMs`, `jitterMs` and `untilField` when present (a container that decides itself
   * when it exits).
   */
  readonly durationMsFrom?: string;
  /**
   * Also waits for the readiness probes: the stage fires no earlier than each container with a `readinessProbe`
   * started (`state.running.startedAt`) plus the probe's `initialDelaySeconds` times this factor (1: as the pod says;
   * a sped-up cluster shortens it as it shortens the stages). Unset: probes are not waited for.
   */
  readonly readinessProbeScale?: number;
}

/** The container state a {@link StageNext} gives every container of the pod. */
export interface StageContainers {
  readonly state: "waiting" | "running" | "terminated";
  /** `waiting`/`terminated` reason (`ContainerCreating`, `CrashLoopBackOff`, `Completed`, `Error`). */
  readonly reason?: string;
  /** `terminated` exit code. Default 0. */
  readonly exitCode?: number;
  /**
   * A path into the pod (as a {@link StageRequirement} key) whose integer value is the `terminated` exit code, e.g.
   * `.metadata.annotations.sim-cluster/exit-code`; `exitCode` applies when it is absent or not an integer.
   */
  readonly exitCodeFrom?: string;
  /** `containerStatuses[].ready`. Default: true only for `running` when the stage sets `Ready=True`. */
  readonly ready?: boolean;
  /** Counts a restart (`restartCount + 1`, `lastState` keeps the terminated state). */
  readonly restart?: boolean;
}

/** What a {@link Stage} does to a pod when it fires (kwok's `StageNext`, as data instead of a Go template). */
export interface StageNext {
  /** `status.phase`. */
  readonly phase?: "Pending" | "Running" | "Succeeded" | "Failed";
  /** Conditions to set by type (`{ Ready: "True" }`); `lastTransitionTime` moves only when a status changes. */
  readonly conditions?: Readonly<Record<string, "True" | "False" | "Unknown">>;
  readonly containers?: StageContainers;
  /** Sets `status.hostIP` (the node's address), `status.podIP` (from the node's pod CIDR) and `startTime`. */
  readonly assignIPs?: boolean;
  /** Deletes the pod with `gracePeriodSeconds: 0` (the kubelet's final delete once containers stopped). */
  readonly delete?: boolean;
  /**
   * With `delete`: a pod that is not `Succeeded`/`Failed` yet and has finalizers (so the delete leaves it in place)
   * first gets the terminal status the kubelet writes once it killed the containers — every container `terminated`
   * (exit code 137, `Error`), `Ready`/`ContainersReady` `False`, phase `Failed` — as a Job's pods under
   * `podReplacementPolicy: Failed` need to be replaced.
   */
  readonly terminalStatusFirst?: boolean;
  /**
   * A file the containers leave on the pod's node (in a `hostPath` volume: it outlives the pod), the path's `$(VAR)`
   * references expanded from the first container's environment; a {@link StageSelector.hostFile} tests for it.
   */
  readonly writeHostFile?: string;
  /**
   * With `containers.state: running`: the events the kubelet records as it starts each container (on the pod, field
   * path `spec.containers{name}`): `Pulling` (`Pulling image "busybox"`) and `Pulled` (`Successfully pulled image
   * "busybox" in 0s (0s including waiting)`) when the image is pulled — `imagePullPolicy: Always` (the default for
   * `:latest` or no tag), or the node has not pulled it yet — else `Pulled` (`Container image "busybox" already
   * present on machine`); then `Created` (`Created container: c`) and `Started` (`Started container c`).
   */
  readonly containerEvents?: boolean;
  /** An Event the kubelet records on the pod (source `kubelet`, the node as host). */
  readonly event?: { readonly type: "Normal" | "Warning"; readonly reason: string; readonly message: string };
}

/**
 * One step of a pod's lifecycle as data (kwok's `Stage` custom resource): the kubelet stand-in applies, to each pod on
 * a node it runs, a stage whose `selector` matches (by `weight` among several, drawn from the seeded `Rand`), `delay`
 * after the pod started to match, provided it still matches then; with `failureProbability` the `failure` step is
 * applied instead of `next`. Applying a step changes the pod, so the next stage matches: the default stages walk a pod
 * pending → container creating → running → ready, and deleting → removed.
 */
export interface Stage {
  readonly name: string;
  readonly selector?: StageSelector;
  /** Relative weight when several stages match. Default 1. */
  readonly weight?: number;
  readonly delay?: StageDelay;
  readonly next: StageNext;
  /** In [0, 1]: the chance that `failure` applies instead of `next`. Default 0. */
  readonly failureProbability?: number;
  readonly failure?: StageNext;
}

/**
 * The pod annotation that makes a pod's containers fail under the default stages: `sim-cluster/outcome: Failed`
 * (with `sim-cluster/exit-code`, default 1). Without it a pod with `restartPolicy: Never`/`OnFailure` succeeds.
 */
export const OUTCOME_ANNOTATION = "sim-cluster/outcome";
/** The pod annotation holding the exit code of a failing pod's containers (default 1). */
export const EXIT_CODE_ANNOTATION = "sim-cluster/exit-code";
/**
 * The pod annotation that makes a deleting pod's containers handle `SIGTERM` (a `trap` in their command): they exit
 * with this code (default 143) after {@link TERMINATION_DELAY_ANNOTATION} milliseconds, so the pod is `Failed` before
 * its grace period is over (stage `pod-terminate-on-signal`).
 */
export const TERMINATION_EXIT_CODE_ANNOTATION = "sim-cluster/termination-exit-code";
/** How many milliseconds of virtual time a {@link TERMINATION_EXIT_CODE_ANNOTATION} pod takes to stop (default 0). */
export const TERMINATION_DELAY_ANNOTATION = "sim-cluster/termination-delay-ms";
const OUTCOME_KEY = `.metadata.annotations.${OUTCOME_ANNOTATION}`;
const EXIT_CODE_KEY = `.metadata.annotations.${EXIT_CODE_ANNOTATION}`;
const TERMINATION_EXIT_CODE_KEY = `.metadata.annotations.${TERMINATION_EXIT_CODE_ANNOTATION}`;

const NOT_DELETING: StageRequirement = { key: ".metadata.deletionTimestamp", operator: "DoesNotExist" };

/**
 * The default pod stages (after kwok's `pod-general` stages): a bound pod gets its containers created
 * (`ContainerCreating`, `Initialized`), they start after about a second (`Running`, IPs, the `Pulled`/`Created`/
 * `Started` events of each container), the pod
 * becomes `Ready`; a container that exited under `restartPolicy: Always`/`OnFailure` restarts; a pod with
 * `restartPolicy: Never`/`OnFailure` whose containers ran completes (`Succeeded`) after about five seconds — or, with the
 * {@link OUTCOME_ANNOTATION} `Failed`, fails (`Failed` with the {@link EXIT_CODE_ANNOTATION}'s exit code under `Never`;
 * the container exits with it and restarts otherwise, as `CrashLoopBackOff` would); a deleting
 * pod is removed once its grace period is over — a pod with finalizers turns `Failed` first (its containers killed,
 * exit code 137), and one annotated {@link TERMINATION_EXIT_CODE_ANNOTATION} turns `Failed` with that code after
 * {@link TERMINATION_DELAY_ANNOTATION} ms (stage `pod-terminate-on-signal`).
 */
export const DEFAULT_POD_STAGES: readonly Stage[] = Object.freeze<Stage[]>([
  {
    name: "pod-container-creating",
    selector: {
      matchExpressions: [
        NOT_DELETING,
        { key: ".status.phase", operator: "In", values: ["Pending"] },
        { key: ".status.containerStatuses.state", operator: "DoesNotExist" },
      ],
    },
    next: {
      conditions: { PodScheduled: "True", Initialized: "True", Ready: "False", ContainersReady: "False" },
      containers: { state: "waiting", reason: "ContainerCreating" },
      assignIPs: true,
    },
  },
  {
    name: "pod-running",
    selector: {
      matchExpressions: [
        NOT_DELETING,
        { key: ".status.phase", operator: "In", values: ["Pending"] },
        { key: ".status.containerStatuses.reason", operator: "In", values: ["ContainerCreating"] },
      ],
    },
    delay: { durationMs: 500, jitterMs: 1000 },
    next: {
      phase: "Running",
      conditions: { PodReadyToStartContainers: "True" },
      containers: { state: "running" },
      containerEvents: true,
    },
  },
  {
    name: "pod-ready",
    selector: {
      matchExpressions: [
        NOT_DELETING,
        { key: ".status.phase", operator: "In", values: ["Running"] },
        { key: ".status.containerStatuses.state", operator: "In", values: ["running"] },
        { key: ".status.conditions.Ready", operator: "NotIn", values: ["True"] },
      ],
    },
    delay: { durationMs: 200, jitterMs: 300, readinessProbeScale: 1 },
    next: { conditions: { Ready: "True", ContainersReady: "True" }, containers: { state: "running", ready: true } },
  },
  {
    name: "pod-restart",
    selector: {
      matchExpressions: [
        NOT_DELETING,
        { key: ".status.phase", operator: "In", values: ["Running"] },
        { key: ".status.containerStatuses.state", operator: "In", values: ["terminated"] },
        { key: ".spec.restartPolicy", operator: "NotIn", values: ["Never"] },
      ],
    },
    delay: { durationMs: 10_000, jitterMs: 1000 },
    next: {
      containers: { state: "running", restart: true },
      containerEvents: true,
    },
  },
  {
    name: "pod-complete",
    selector: {
      matchExpressions: [
        NOT_DELETING,
        { key: OUTCOME_KEY, operator: "NotIn", values: ["Failed"] },
        { key: ".status.phase", operator: "In", values: ["Running"] },
        { key: ".status.containerStatuses.state", operator: "In", values: ["running"] },
        { key: ".spec.restartPolicy", operator: "In", values: ["Never", "OnFailure"] },
        { key: ".status.conditions.Ready", operator: "In", values: ["True"] },
      ],
    },
    delay: { durationMs: 5000, jitterMs: 1000 },
    next: {
      phase: "Succeeded",
      conditions: { Ready: "False", ContainersReady: "False" },
      containers: { state: "terminated", reason: "Completed", exitCode: 0 },
    },
  },
  {
    name: "pod-fail",
    selector: {
      matchExpressions: [
        NOT_DELETING,
        { key: OUTCOME_KEY, operator: "In", values: ["Failed"] },
        { key: ".status.phase", operator: "In", values: ["Running"] },
        { key: ".status.containerStatuses.state", operator: "In", values: ["running"] },
        { key: ".spec.restartPolicy", operator: "In", values: ["Never"] },
        { key: ".status.conditions.Ready", operator: "In", values: ["True"] },
      ],
    },
    delay: { durationMs: 5000, jitterMs: 1000 },
    next: {
      phase: "Failed",
      conditions: { Ready: "False", ContainersReady: "False" },
      containers: { state: "terminated", reason: "Error", exitCode: 1, exitCodeFrom: EXIT_CODE_KEY },
    },
  },
  {
    name: "pod-crash",
    selector: {
      matchExpressions: [
        NOT_DELETING,
        { key: OUTCOME_KEY, operator: "In", values: ["Failed"] },
        { key: ".status.phase", operator: "In", values: ["Running"] },
        { key: ".status.containerStatuses.state", operator: "In", values: ["running"] },
        { key: ".spec.restartPolicy", operator: "NotIn", values: ["Never"] },
        { key: ".status.conditions.Ready", operator: "In", values: ["True"] },
      ],
    },
    delay: { durationMs: 5000, jitterMs: 1000 },
    next: {
      conditions: { Ready: "False", ContainersReady: "False" },
      containers: { state: "terminated", reason: "Error", exitCode: 1, exitCodeFrom: EXIT_CODE_KEY },
    },
  },
  {
    // Outweighs pod-delete, which matches the same pods.
    name: "pod-terminate-on-signal",
    weight: 1e9,
    selector: {
      matchExpressions: [
        { key: ".metadata.deletionTimestamp", operator: "Exists" },
        { key: TERMINATION_EXIT_CODE_KEY, operator: "Exists" },
        { key: ".status.phase", operator: "In", values: ["Running"] },
      ],
    },
    delay: { durationMsFrom: `.metadata.annotations.${TERMINATION_DELAY_ANNOTATION}` },
    next: {
      phase: "Failed",
      conditions: { Ready: "False", ContainersReady: "False" },
      containers: { state: "terminated", reason: "Error", exitCode: 143, exitCodeFrom: TERMINATION_EXIT_CODE_KEY },
    },
  },
  {
    name: "pod-delete",
    selector: { matchExpressions: [{ key: ".metadata.deletionTimestamp", operator: "Exists" }] },
    delay: { untilField: ".metadata.deletionTimestamp" },
    next: { delete: true, terminalStatusFirst: true },
  },
]);

/**
 * The stages of {@link DEFAULT_POD_STAGES} that start a bound pod's containers (`pod-ready` stays: it makes a
 * restarted container ready again).
 */
const STARTUP_STAGES = new Set(["pod-container-creating", "pod-running"]);

/**
 * The default stages with a bound pod's start-up in one status write (after kwok's `stages/pod-fast.yaml`, the stages
 * kwok installs by default and runs its scale figures with): `pod-create-and-ready` takes a pending pod without a
 * pod IP straight to `Running` and `Ready` (IPs, start time, every container running and ready, its start events)
 * when it is bound, with no delay. What follows — restart (and `pod-ready` after it), completion, failure by
 * annotation, deletion — is {@link DEFAULT_POD_STAGES}' own stages. A pod is never seen `ContainerCreating`: use the default stages where that
 * matters (a test of a controller's view of starting pods). One pod start costs one `pods/status` write instead of
 * three, which is what a kubelet writes for a pod without readiness probes whose image is present (its status
 * manager coalesces what changed between syncs).
 */
export const FAST_POD_STAGES: readonly Stage[] = Object.freeze<Stage[]>([
  {
    name: "pod-create-and-ready",
    selector: {
      matchExpressions: [
        NOT_DELETING,
        { key: ".status.phase", operator: "In", values: ["Pending"] },
        { key: ".status.podIP", operator: "DoesNotExist" },
      ],
    },
    next: {
      phase: "Running",
      conditions: {
        PodScheduled: "True",
        Initialized: "True",
        PodReadyToStartContainers: "True",
        ContainersReady: "True",
        Ready: "True",
      },
      containers: { state: "running", ready: true },
      assignIPs: true,
      containerEvents: true,
    },
  },
  ...DEFAULT_POD_STAGES.filter((s) => !STARTUP_STAGES.has(s.name)),
]);

/** Why a stage list is invalid: thrown by {@link validateStages}, naming the stage and field. */
export class InvalidStageError extends Error {
  override readonly name = "InvalidStageError";
}

const OPERATORS = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);

/**
 * Checks stages given as data (a stages file, a test's list): names unique and non-empty, operators known, `In`/`NotIn`
 * with `values`, delays and weights finite and ≥ 0, `failureProbability` in [0, 1] and a `failure` step when it is
 * above 0. Throws an {@link InvalidStageError} naming the first problem (`stages[2] "pod-ready": delay.jitterMs must
 * be a finite number ≥ 0, got -1`); returns the stages.
 */
export function validateStages(stages: unknown): readonly Stage[] {
  if (!Array.isArray(stages)) throw new InvalidStageError(`stages must be an array, got ${typeof stages}`);
  const names = new Set<string>();
  stages.forEach((s: unknown, i) => {
    const at = (field: string, what: string, got: unknown) =>
      new InvalidStageError(
        `stages[${i}]${typeof (s as Stage)?.name === "string" ? ` ${JSON.stringify((s as Stage).name)}` : ""}: ${field} ${what}, got ${JSON.stringify(got)}`,
      );
    if (typeof s !== "object" || s === null) throw at("", "must be an object", s);
    const st = s as Stage;
    if (typeof st.name !== "string" || st.name === "") throw at("name", "must be a non-empty string", st.name);
    if (names.has(st.name)) throw at("name", "must be unique", st.name);
    names.add(st.name);
    const nonNeg = (field: string, v: unknown) => {
      if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v >= 0))
        throw at(field, "must be a finite number ≥ 0", v);
    };
    nonNeg("weight", st.weight);
    nonNeg("delay.durationMs", st.delay?.durationMs);
    nonNeg("delay.jitterMs", st.delay?.jitterMs);
    const from = st.delay?.durationMsFrom;
    if (from !== undefined && !(typeof from === "string" && from.startsWith(".")))
      throw at("delay.durationMsFrom", "must be a path starting with '.'", from);
    if (typeof st.next !== "object" || st.next === null) throw at("next", "must be an object", st.next);
    const p = st.failureProbability;
    if (p !== undefined && !(typeof p === "number" && p >= 0 && p <= 1))
      throw at("failureProbability", "must be a number in [0, 1]", p);
    if (p !== undefined && p > 0 && (typeof st.failure !== "object" || st.failure === null))
      throw at("failure", "must be given when failureProbability > 0", st.failure);
    const hf = st.selector?.hostFile;
    if (hf !== undefined && (typeof hf?.path !== "string" || hf.path === "" || typeof hf.exists !== "boolean"))
      throw at("selector.hostFile", "must have a non-empty path and a boolean exists", hf);
    if (
      st.next.writeHostFile !== undefined &&
      (typeof st.next.writeHostFile !== "string" || st.next.writeHostFile === "")
    )
      throw at("next.writeHostFile", "must be a non-empty string", st.next.writeHostFile);
    for (const [j, r] of (st.selector?.matchExpressions ?? []).entries()) {
      if (typeof r?.key !== "string" || !r.key.startsWith("."))
        throw at(`selector.matchExpressions[${j}].key`, "must be a path starting with '.'", r?.key);
      if (!OPERATORS.has(r.operator))
        throw at(`selector.matchExpressions[${j}].operator`, "must be In, NotIn, Exists or DoesNotExist", r.operator);
      if ((r.operator === "In" || r.operator === "NotIn") && !Array.isArray(r.values))
        throw at(`selector.matchExpressions[${j}].values`, `must be a list for ${r.operator}`, r.values);
    }
  });
  return stages as readonly Stage[];
}
