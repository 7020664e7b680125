import { type FieldError, isDNS1123Label, type KubeObject } from "@informer-ts/apimachinery";
import { listAt, notSupported, objectAt, portNumber, stringAt } from "./common.js";

const TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const AFFINITIES = ["ClientIP", "None"];

/**
 * `ValidateService`, the essentials: `type`, `sessionAffinity`; ports required unless headless or `ExternalName`
 * (`spec.ports: Required value`), each with a port number, a known protocol, a DNS-label name — required when there
 * are several (`spec.ports[0].name: Required value`) and unique (`Duplicate value`) — and a valid `targetPort`; an
 * `ExternalName` service needs `externalName`.
 */
export function validateService(svc: KubeObject): FieldError[] {
  const spec = objectAt(svc.spec) ?? {};
  const errs: FieldError[] = [];
  const type = stringAt(spec.type);
  if (type !== "" && !TYPES.includes(type)) errs.push(notSupported(type, "spec.type", TYPES));
  const affinity = stringAt(spec.sessionAffinity);
  if (affinity !== "" && !AFFINITIES.includes(affinity))
    errs.push(notSupported(affinity, "spec.sessionAffinity", AFFINITIES));
  const headless = spec.clusterIP === "None";
  const ports = listAt(spec.ports);
  if (ports.length === 0 && !headless && type !== "ExternalName")
    errs.push({ type: "FieldValueRequired", field: "spec.ports" });
  if (type === "ExternalName" && stringAt(spec.externalName) === "")
    errs.push({ type: "FieldValueRequired", field: "spec.externalName" });
  const names = new Set<string>();
  ports.forEach((raw, i) => {
    const p = objectAt(raw) ?? {};
    const path = `spec.ports[${i}]`;
    const name = stringAt(p.name);
    if (name === "") {
      if (ports.length > 1) errs.push({ type: "FieldValueRequired", field: `${path}.name` });
    } else {
      for (const detail of isDNS1123Label(name))
        errs.push({ type: "FieldValueInvalid", field: `${path}.name`, badValue: name, detail });
      if (names.has(name)) errs.push({ type: "FieldValueDuplicate", field: `${path}.name`, badValue: name });
      names.add(name);
    }
    errs.push(...portNumber(p.port, `${path}.port`));
    const proto = p.protocol;
    if (typeof proto === "string" && !PROTOCOLS.includes(proto))
      errs.push(notSupported(proto, `${path}.protocol`, PROTOCOLS));
    const target = p.targetPort;
    if (typeof target === "number") {
      if (target !== 0) errs.push(...portNumber(target, `${path}.targetPort`));
    } else if (
      typeof target === "string" &&
      target !== "" &&
      !/^(?=.*[a-z])[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$/.test(target)
    ) {
      errs.push({
        type: "FieldValueInvalid",
        field: `${path}.targetPort`,
        badValue: target,
        detail: "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
      });
    }
    if (p.nodePort !== undefined && p.nodePort !== 0 && (type === "ClusterIP" || type === "")) {
      errs.push({
        type: "FieldValueForbidden",
        field: `${path}.nodePort`,
        detail: "may not be used when `type` is 'ClusterIP'",
      });
    }
  });
  return errs;
}

/**
 * `ValidateServiceUpdate`: once allocated, the cluster IP may not change (`spec.clusterIPs[0]: Invalid value:
 * "10.96.0.12": may not change once set`) unless the service becomes or was an `ExternalName`.
 */
export function validateServiceUpdate(svc: KubeObject, old: KubeObject): FieldError[] {
  const spec = objectAt(svc.spec) ?? {};
  const oldSpec = objectAt(old.spec) ?? {};
  const errs = validateService(svc);
  if (spec.type === "ExternalName" || oldSpec.type === "ExternalName") return errs;
  const oldIP = stringAt(oldSpec.clusterIP);
  const ip = stringAt(spec.clusterIP);
  if (oldIP !== "" && ip !== oldIP) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.clusterIPs[0]",
      badValue: ip,
      detail: "may not change once set",
    });
  }
  return errs;
}
