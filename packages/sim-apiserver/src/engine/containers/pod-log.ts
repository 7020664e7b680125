import { type FieldError, type KubeObject, newBadRequest, newInvalid, newNotFound } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import { type ContainerWorld, containerOutput } from "./container-output.js";

/** `v1` `PodLogOptions`: the query of `GET pods/<name>/log`. */
export interface PodLogOptions {
  /** Which container; required when the pod has several. */
  readonly container?: string;
  /** Keep the stream open until the container stops running. */
  readonly follow?: boolean;
  /** The last terminated instance instead of the current one. */
  readonly previous?: boolean;
  /** Only lines of the last so many seconds (≥ 1). */
  readonly sinceSeconds?: number;
  /** Only lines from this RFC 3339 time on. */
  readonly sinceTime?: string;
  /** Prefix each line with its RFC3339Nano time. */
  readonly timestamps?: boolean;
  /** Only the last so many lines (≥ 0). */
  readonly tailLines?: number;
  /** At most so many bytes (≥ 1). */
  readonly limitBytes?: number;
}

/** What `GET pods/<name>/log` answers: the log now, and for `follow` the wait after which the stream ends. */
export interface PodLogResponse {
  readonly text: string;
  /** Resolves when the container ended, the pod is gone, or `signal` aborted (absent: the response ends at once). */
  readonly follow?: (signal: AbortSignal) => Promise<void>;
}

/** One log line of a container instance. */
export interface LogLine {
  /** ms since the epoch. */
  readonly time: number;
  readonly text: string;
}

/** The answer of {@link PodLogs.read}: the log text now, and for `follow` what to wait for before the stream ends. */
export interface PodLogAnswer {
  readonly text: string;
  /** Set for `follow` on a running container: ends the stream once it holds for the pod (or the pod is gone). */
  readonly followUntil?: (pod: KubeObject | undefined) => boolean;
}

function parseBool(name: string, v: string): boolean {
  if (v === "" || v === "true" || v === "1" || v === "True" || v === "TRUE" || v === "t" || v === "T") return true;
  if (v === "false" || v === "0" || v === "False" || v === "FALSE" || v === "f" || v === "F") return false;
  throw newBadRequest(`invalid value for ${name}: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

function parseInt64(name: string, v: string): number {
  if (!/^[-+]?\d+$/.test(v))
    throw newBadRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/**
 * Decodes a `pods/log` query into {@link PodLogOptions} (the query-parameter conversion of `PodLogOptions`): booleans
 * as Go's `ParseBool`, integers as `ParseInt`, `sinceTime` as RFC 3339; 400 naming the parameter otherwise.
 */
export function podLogOptionsFromQuery(q: URLSearchParams): PodLogOptions {
  const o: {
    -readonly [K in keyof PodLogOptions]: PodLogOptions[K];
  } = {};
  const c = q.get("container");
  if (c !== null) o.container = c;
  for (const k of ["follow", "previous", "timestamps"] as const) {
    const v = q.get(k);
    if (v !== null) o[k] = parseBool(k, v);
  }
  for (const k of ["sinceSeconds", "tailLines", "limitBytes"] as const) {
    const v = q.get(k);
    if (v !== null) o[k] = parseInt64(k, v);
  }
  const t = q.get("sinceTime");
  if (t !== null) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(t) || Number.isNaN(Date.parse(t)))
      throw newBadRequest(`invalid value for sinceTime: parsing time ${JSON.stringify(t)} as RFC 3339: cannot parse`);
    o.sinceTime = t;
  }
  return o;
}

/** `ValidatePodLogOptions` (`pkg/apis/core/validation`): the field errors of `o`. */
export function validatePodLogOptions(o: PodLogOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0)
    errs.push({
      type: "FieldValueInvalid",
      field: "tailLines",
      badValue: o.tailLines,
      detail: "must be greater than or equal to 0",
    });
  if (o.limitBytes !== undefined && o.limitBytes < 1)
    errs.push({
      type: "FieldValueInvalid",
      field: "limitBytes",
      badValue: o.limitBytes,
      detail: "must be greater than 0",
    });
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined)
    errs.push({
      type: "FieldValueForbidden",
      field: "",
      detail: "at most one of `sinceTime` or `sinceSeconds` may be specified",
    });
  else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1)
    errs.push({
      type: "FieldValueInvalid",
      field: "sinceSeconds",
      badValue: o.sinceSeconds,
      detail: "must be greater than 0",
    });
  return errs;
}

/** Go's `time.RFC3339Nano` in UTC (trailing zeros of the fraction dropped), as kubelet stamps log lines. */
export function rfc3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString();
  const frac = iso.slice(20, 23).replace(/0+$/, "");
  return `${iso.slice(0, 19)}${frac === "" ? "" : `.${frac}`}Z`;
}

/**
 * The bytes kubelet returns for `lines` under `o` (`pkg/kubelet/kuberuntime/logs/logs.go`): lines before `since`
 * (ms) dropped, the last `tailLines` kept, each prefixed with its RFC3339Nano time and a space under `timestamps`,
 * newline-terminated, and the whole cut to `limitBytes` bytes.
 */
export function formatLog(lines: readonly LogLine[], o: PodLogOptions, since: number | undefined): string {
  let kept = since === undefined ? lines : lines.filter((l) => l.time >= since);
  if (o.tailLines !== undefined) kept = o.tailLines === 0 ? [] : kept.slice(-o.tailLines);
  const text = kept.map((l) => `${o.timestamps === true ? `${rfc3339Nano(l.time)} ` : ""}${l.text}\n`).join("");
  if (o.limitBytes === undefined) return text;
  const bytes = Buffer.from(text, "utf8");
  return bytes.length <= o.limitBytes ? text : bytes.subarray(0, o.limitBytes).toString("utf8");
}

type State = {
  running?: { startedAt?: string };
  terminated?: { startedAt?: string; containerID?: string };
  waiting?: { reason?: string };
};
interface ContainerStatus {
  name?: string;
  restartCount?: number;
  state?: State;
  lastState?: State;
}

/** The dependencies of {@link PodLogs}. */
export interface PodLogsDeps {
  readonly clock: Clock;
  /** The stored pod, if any. */
  readonly pod: (namespace: string, name: string) => KubeObject | undefined;
  /** What a container started at `startedAtMs` sees (ConfigMaps, Secrets, its token). */
  readonly world: (startedAtMs: number) => ContainerWorld;
}

/**
 * `GET pods/<name>/log` (kube-apiserver's `LogREST.Get` of `pkg/registry/core/pod/rest/log.go` with
 * `LogLocation` of `pkg/registry/core/pod/strategy.go`, and the kubelet's side, `validateContainerLogStatus` of
 * `pkg/kubelet/kubelet_pods.go`): options validated (422 `PodLogOptions`), the pod looked up (404), the container
 * chosen — the only one, else `container` is required (400 `a container name must be specified for pod x, choose
 * one of: [init a b]`, init, regular and ephemeral containers) and must be one of the pod's (400 `container c is not valid for pod x`); a pod not yet on a node
 * answers an empty log, as upstream's nil location does; a container not started is 400 `container "c" in pod "x" is
 * waiting to start: <reason>`, and `previous` without a terminated last instance is 400 `previous terminated
 * container "c" in pod "x" not found`. The log of the instance is the {@link containerOutput} model's lines, all
 * stamped at the instance's `startedAt`: computed when the start was written ({@link PodLogs.observe}), so they show
 * the ConfigMaps, Secrets and token of that moment; an instance not seen starting is computed when read.
 *
 * Differences from kube-apiserver: there is no kubelet connection (so no `insecureSkipTLSVerifyBackend`), and
 * `stream` (Stdout/Stderr, a v1.32 alpha) is not served.
 */
export class PodLogs {
  /**
   * What each started container instance printed, captured when its start was written: pod uid → `<container>@<startedAt>`
   * → lines. Only containers with a command or args are kept (the others print nothing), and per container only the
   * current and the previous instance.
   */
  private readonly printed = new Map<string, Map<string, readonly string[]>>();

  constructor(private readonly deps: PodLogsDeps) {}

  /**
   * Sees a pod written to storage (`undefined` for `uid` deleted): a container that just started prints now, so its
   * output reflects the ConfigMaps, Secrets and token of that moment, as a container's does.
   */
  observe(pod: KubeObject | undefined, uid: string): void {
    if (pod === undefined) {
      this.printed.delete(uid);
      return;
    }
    const status = (
      pod as { status?: { containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[] } }
    ).status;
    const all = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])];
    if (all.length === 0) return;
    const spec = (pod.spec ?? {}) as {
      containers?: Record<string, unknown>[];
      initContainers?: Record<string, unknown>[];
    };
    const specs = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
    let mine = this.printed.get(uid);
    for (const cs of all) {
      const startedAt = cs.state?.running?.startedAt ?? cs.state?.terminated?.startedAt;
      if (startedAt === undefined || cs.name === undefined) continue;
      const key = `${cs.name}@${startedAt}`;
      if (mine?.has(key)) continue;
      const c = specs.find((x) => x.name === cs.name);
      const runs = (v: unknown) => Array.isArray(v) && v.length > 0;
      if (c === undefined || !(runs(c.command) || runs(c.args))) continue;
      const at = Date.parse(startedAt);
      const lines = containerOutput(pod, cs.name, this.deps.world(Number.isFinite(at) ? at : this.deps.clock.now()));
      if (mine === undefined) {
        mine = new Map();
        this.printed.set(uid, mine);
      }
      // Keep this instance and the previous one (`lastState`): what `previous=true` reads.
      const prev = cs.lastState?.terminated?.startedAt;
      for (const k of mine.keys()) if (k.startsWith(`${cs.name}@`) && k !== `${cs.name}@${prev ?? ""}`) mine.delete(k);
      mine.set(key, lines);
    }
  }

  read(namespace: string, name: string, o: PodLogOptions): PodLogAnswer {
    const errs = validatePodLogOptions(o);
    if (errs.length > 0) throw newInvalid({ group: "", kind: "PodLogOptions" }, name, errs);
    const pod = this.deps.pod(namespace, name);
    if (pod === undefined) throw newNotFound({ group: "", resource: "pods" }, name);
    const spec = (pod.spec ?? {}) as {
      containers?: { name?: string }[];
      initContainers?: { name?: string }[];
      ephemeralContainers?: { name?: string }[];
      nodeName?: string;
    };
    const names = (spec.containers ?? []).map((c) => c.name ?? "");
    const inits = (spec.initContainers ?? []).map((c) => c.name ?? "");
    const ephemeral = (spec.ephemeralContainers ?? []).map((c) => c.name ?? "");
    let container = o.container ?? "";
    if (container === "") {
      if (names.length === 1) container = names[0]!;
      else if (names.length === 0) throw newBadRequest(`a container name must be specified for pod ${name}`);
      else {
        const all = [...inits, ...names, ...ephemeral].join(" ");
        throw newBadRequest(`a container name must be specified for pod ${name}, choose one of: [${all}]`);
      }
    } else if (![...names, ...inits, ...ephemeral].includes(container)) {
      throw newBadRequest(`container ${container} is not valid for pod ${name}`);
    }
    if ((spec.nodeName ?? "") === "") return { text: "" };
    const status = (
      pod as { status?: { containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[] } }
    ).status;
    const cs = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])].find(
      (s) => s.name === container,
    );
    const instance = o.previous === true ? cs?.lastState : cs?.state;
    let startedAt: string | undefined;
    if (o.previous === true) {
      if (instance?.terminated === undefined)
        throw newBadRequest(`previous terminated container "${container}" in pod "${name}" not found`);
      startedAt = instance.terminated.startedAt;
    } else if (instance?.running !== undefined) startedAt = instance.running.startedAt;
    else if (instance?.terminated !== undefined) startedAt = instance.terminated.startedAt;
    else {
      const reason = instance?.waiting?.reason ?? "ContainerCreating";
      const why =
        reason === "ErrImagePull"
          ? "image can't be pulled"
          : reason === "ImagePullBackOff"
            ? "trying and failing to pull image"
            : reason;
      throw newBadRequest(`container "${container}" in pod "${name}" is waiting to start: ${why}`);
    }
    const started = Date.parse(startedAt ?? "");
    const at = Number.isFinite(started) ? started : this.deps.clock.now();
    const captured = this.printed.get(pod.metadata?.uid ?? "")?.get(`${container}@${startedAt ?? ""}`);
    const lines = (captured ?? containerOutput(pod, container, this.deps.world(at))).map((text) => ({
      time: at,
      text,
    }));
    const since =
      o.sinceTime !== undefined
        ? Date.parse(o.sinceTime)
        : o.sinceSeconds !== undefined
          ? this.deps.clock.now() - o.sinceSeconds * 1000
          : undefined;
    const text = formatLog(lines, o, since);
    const truncated = o.limitBytes !== undefined && Buffer.byteLength(text) >= o.limitBytes;
    if (o.follow !== true || o.previous === true || instance?.running === undefined || truncated) return { text };
    const uid = pod.metadata?.uid;
    const restarts = cs?.restartCount ?? 0;
    return {
      text,
      followUntil: (p) => {
        if (p === undefined || p.metadata?.uid !== uid) return true;
        const st = (
          p as { status?: { containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[] } }
        ).status;
        const now = [...(st?.initContainerStatuses ?? []), ...(st?.containerStatuses ?? [])].find(
          (s) => s.name === container,
        );
        return now?.state?.running === undefined || (now.restartCount ?? 0) !== restarts;
      },
    };
  }
}
