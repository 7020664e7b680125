import { type FieldError, isDNS1123Label } from "@informer-ts/apimachinery";
import { listAt, objectAt, stringAt } from "./common.js";

/** `core.VolumeSource`'s members (JSON names), each a volume type of its own. */
const VOLUME_SOURCES = [
  "hostPath",
  "emptyDir",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "persistentVolumeClaim",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "downwardAPI",
  "fc",
  "azureFile",
  "configMap",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "projected",
  "portworxVolume",
  "scaleIO",
  "storageos",
  "csi",
  "ephemeral",
  "image",
] as const;

/**
 * `ValidateVolumes` (`pkg/apis/core/validation/validation.go`), the structure: each volume has a name that is a DNS
 * label (`spec.volumes[0].name: Required value`), unique in the pod (`Duplicate value: "data"`), and exactly one
 * volume type — none is `spec.volumes[0]: Required value: must specify a volume type`, each one beyond the first is
 * `spec.volumes[0].emptyDir: Forbidden: may not specify more than 1 volume type` (`validateVolumeSource`). Returns
 * the volume names for the containers' `volumeMounts`. Differences: the sources' own fields are not validated.
 */
export function validateVolumes(list: unknown, path: string): { errs: FieldError[]; names: Set<string> } {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  listAt(list).forEach((raw, i) => {
    const vol = objectAt(raw) ?? {};
    const p = `${path}[${i}]`;
    const name = stringAt(vol.name);
    if (name === "") errs.push({ type: "FieldValueRequired", field: `${p}.name` });
    else {
      for (const detail of isDNS1123Label(name))
        errs.push({ type: "FieldValueInvalid", field: `${p}.name`, badValue: name, detail });
      if (names.has(name)) errs.push({ type: "FieldValueDuplicate", field: `${p}.name`, badValue: name });
      names.add(name);
    }
    const sources = VOLUME_SOURCES.filter((s) => vol[s] !== undefined && vol[s] !== null);
    if (sources.length === 0) errs.push({ type: "FieldValueRequired", field: p, detail: "must specify a volume type" });
    for (const extra of sources.slice(1))
      errs.push({
        type: "FieldValueForbidden",
        field: `${p}.${extra}`,
        detail: "may not specify more than 1 volume type",
      });
  });
  return { errs, names };
}

/**
 * A container's `volumeMounts` (`ValidateVolumeMounts`): a name (`Required value`) that names a volume of the pod
 * (`Not found: "x"`) and a `mountPath` (`Required value`).
 */
export function validateVolumeMounts(list: unknown, volumes: ReadonlySet<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  listAt(list).forEach((raw, i) => {
    const m = objectAt(raw) ?? {};
    const p = `${path}[${i}]`;
    const name = stringAt(m.name);
    if (name === "") errs.push({ type: "FieldValueRequired", field: `${p}.name` });
    else if (!volumes.has(name)) errs.push({ type: "FieldValueNotFound", field: `${p}.name`, badValue: name });
    if (stringAt(m.mountPath) === "") errs.push({ type: "FieldValueRequired", field: `${p}.mountPath` });
  });
  return errs;
}
