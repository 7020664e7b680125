import { type FieldError, isDNS1123Label } from "@informer-ts/apimachinery";
import { validateAffinity } from "./affinity.js";
import { listAt, nonNegative, notSupported, objectAt, portNumber, stringAt } from "./common.js";
import { validateContainerProbes } from "./probes.js";
import { validateVolumeMounts, validateVolumes } from "./volumes.js";

const RESTART_POLICIES = ["Always", "OnFailure", "Never"];
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const TERMINATION_MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"];

/** What the pod's owner allows: a workload's template only `Always` (`restartPolicies`), a Job's `OnFailure`/`Never`. */
export interface PodSpecRules {
  readonly restartPolicies?: readonly string[];
  /**
   * Names a volume mount may refer to besides `volumes`: a StatefulSet's `volumeClaimTemplates`, which become the
   * pods' volumes (upstream leaves a StatefulSet template's mounts unchecked against its volumes for that reason).
   */
  readonly extraVolumeNames?: readonly string[];
}

function validateContainers(
  list: unknown,
  path: string,
  required: boolean,
  names: Set<string>,
  volumes: ReadonlySet<string>,
): FieldError[] {
  const errs: FieldError[] = [];
  const containers = listAt(list);
  if (required && containers.length === 0) errs.push({ type: "FieldValueRequired", field: path });
  containers.forEach((raw, i) => {
    const c = objectAt(raw) ?? {};
    const p = `${path}[${i}]`;
    const name = stringAt(c.name);
    if (name === "") errs.push({ type: "FieldValueRequired", field: `${p}.name` });
    else {
      for (const detail of isDNS1123Label(name))
        errs.push({ type: "FieldValueInvalid", field: `${p}.name`, badValue: name, detail });
      if (names.has(name)) errs.push({ type: "FieldValueDuplicate", field: `${p}.name`, badValue: name });
      names.add(name);
    }
    if (stringAt(c.image).trim() === "") errs.push({ type: "FieldValueRequired", field: `${p}.image` });
    const pull = c.imagePullPolicy;
    if (typeof pull === "string" && !PULL_POLICIES.includes(pull))
      errs.push(notSupported(pull, `${p}.imagePullPolicy`, PULL_POLICIES));
    const tmp = c.terminationMessagePolicy;
    if (typeof tmp === "string" && !TERMINATION_MESSAGE_POLICIES.includes(tmp))
      errs.push(notSupported(tmp, `${p}.terminationMessagePolicy`, TERMINATION_MESSAGE_POLICIES));
    const portNames = new Set<string>();
    listAt(c.ports).forEach((rawPort, j) => {
      const port = objectAt(rawPort) ?? {};
      const pp = `${p}.ports[${j}]`;
      errs.push(...portNumber(port.containerPort, `${pp}.containerPort`));
      if (port.hostPort !== undefined && port.hostPort !== 0) errs.push(...portNumber(port.hostPort, `${pp}.hostPort`));
      const proto = port.protocol;
      if (typeof proto === "string" && !PROTOCOLS.includes(proto))
        errs.push(notSupported(proto, `${pp}.protocol`, PROTOCOLS));
      const pn = stringAt(port.name);
      if (pn !== "") {
        if (portNames.has(pn)) errs.push({ type: "FieldValueDuplicate", field: `${pp}.name`, badValue: pn });
        portNames.add(pn);
      }
    });
    errs.push(...validateVolumeMounts(c.volumeMounts, volumes, `${p}.volumeMounts`));
    if (!required) {
      // Init containers: only a restartable (sidecar) one may have probes — upstream forbids them on the others.
      for (const f of ["livenessProbe", "readinessProbe", "startupProbe"])
        if (c[f] !== undefined && c.restartPolicy !== "Always")
          errs.push({
            type: "FieldValueForbidden",
            field: `${p}.${f}`,
            detail: "may not be set for init containers without restartPolicy=Always",
          });
    }
    errs.push(...validateContainerProbes(c, p));
    const envNames = listAt(c.env);
    envNames.forEach((rawEnv, j) => {
      const env = objectAt(rawEnv) ?? {};
      if (stringAt(env.name) === "") errs.push({ type: "FieldValueRequired", field: `${p}.env[${j}].name` });
    });
  });
  return errs;
}

/**
 * `ValidatePodSpec`, the essentials: at least one container (`spec.containers: Required value`), container names
 * DNS labels and unique across containers and init containers (`Duplicate value: "a"`), an image each, port numbers
 * and protocols, `restartPolicy` (`Always`, `OnFailure`, `Never`, or the owner's subset), `dnsPolicy`,
 * `terminationGracePeriodSeconds` ≥ 0 and `activeDeadlineSeconds` > 0; volumes (`volumes.ts`: names unique, one
 * source each) and the containers' mounts of them, probes (`probes.ts`: one handler, ranges), affinity
 * (`affinity.ts`). `path` is where the spec sits (`spec`, `spec.template.spec`).
 */
export function validatePodSpec(specValue: unknown, path: string, rules: PodSpecRules = {}): FieldError[] {
  const spec = objectAt(specValue) ?? {};
  const names = new Set<string>();
  const volumes = validateVolumes(spec.volumes, `${path}.volumes`);
  for (const n of rules.extraVolumeNames ?? []) volumes.names.add(n);
  const errs = [
    ...volumes.errs,
    ...validateContainers(spec.containers, `${path}.containers`, true, names, volumes.names),
    ...validateContainers(spec.initContainers, `${path}.initContainers`, false, names, volumes.names),
    ...validateAffinity(spec.affinity, `${path}.affinity`),
  ];
  const restart = spec.restartPolicy;
  const allowed = rules.restartPolicies ?? RESTART_POLICIES;
  if (typeof restart === "string" && !allowed.includes(restart))
    errs.push(notSupported(restart, `${path}.restartPolicy`, allowed));
  const dns = spec.dnsPolicy;
  if (typeof dns === "string" && !DNS_POLICIES.includes(dns))
    errs.push(notSupported(dns, `${path}.dnsPolicy`, DNS_POLICIES));
  errs.push(...nonNegative(spec.terminationGracePeriodSeconds, `${path}.terminationGracePeriodSeconds`));
  const ads = spec.activeDeadlineSeconds;
  if (typeof ads === "number" && ads <= 0) {
    errs.push({
      type: "FieldValueInvalid",
      field: `${path}.activeDeadlineSeconds`,
      badValue: ads,
      detail: "must be between 1 and 2147483647, inclusive",
    });
  }
  return errs;
}
