import type { KubeObject } from "@informer-ts/apimachinery";
import type { Rand } from "@informer-ts/clock";
import { generateNameFrom } from "../object-util.js";

/** Where kubelet mounts a pod's service-account credentials (`DefaultAPITokenMountPath`). */
export const SERVICE_ACCOUNT_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
/** The generated volume's name prefix (`ServiceAccountVolumeName` + `-`). */
export const API_ACCESS_VOLUME_PREFIX = "kube-api-access-";
/** The token lifetime kubelet asks for (`WarnOnlyBoundTokenExpirationSeconds`). */
export const PROJECTED_TOKEN_EXPIRATION_SECONDS = 3607;

interface Mount {
  name?: string;
  mountPath?: string;
  readOnly?: boolean;
}
interface ContainerLike {
  volumeMounts?: Mount[];
}

/**
 * The `ServiceAccount` admission plugin's mutation of a new pod (`plugin/pkg/admission/serviceaccount/admission.go`,
 * `TokenVolumeSource` and `mountServiceAccountToken`): unless the pod or its service account sets
 * `automountServiceAccountToken: false`, the pod gets a projected volume `kube-api-access-<5 chars>` of the bound
 * token (`token`, 3607 s), `ca.crt` from the namespace's `kube-root-ca.crt` ConfigMap and `namespace` from the
 * downward API, mounted read-only at `/var/run/secrets/kubernetes.io/serviceaccount` in every container and init
 * container that does not mount something there already. Changes `pod` in place.
 *
 * Differences from kube-apiserver: a pod whose service account does not exist is admitted unchanged (upstream refuses
 * it with 403 `error looking up service account`, and clients retry until the ServiceAccount controller made it);
 * the simulator without a cluster has no service accounts at all.
 */
export function mountServiceAccountToken(
  pod: KubeObject,
  serviceAccount: (namespace: string, name: string) => KubeObject | undefined,
  rand: Rand,
): void {
  const spec = pod.spec as
    | {
        serviceAccountName?: string;
        automountServiceAccountToken?: boolean;
        volumes?: Record<string, unknown>[];
        containers?: ContainerLike[];
        initContainers?: ContainerLike[];
      }
    | undefined;
  if (spec === undefined) return;
  const saName = spec.serviceAccountName || "default";
  const sa = serviceAccount(pod.metadata?.namespace ?? "", saName);
  if (sa === undefined) return;
  const automount =
    spec.automountServiceAccountToken ??
    (sa as { automountServiceAccountToken?: boolean }).automountServiceAccountToken;
  if (automount === false) return;
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  const needing = containers.filter(
    (c) => !(c.volumeMounts ?? []).some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH),
  );
  if (needing.length === 0) return;
  const volumes = spec.volumes ?? [];
  const taken = new Set(volumes.map((v) => v.name));
  let name = generateNameFrom(API_ACCESS_VOLUME_PREFIX, rand);
  while (taken.has(name)) name = generateNameFrom(API_ACCESS_VOLUME_PREFIX, rand);
  spec.volumes = [
    ...volumes,
    {
      name,
      projected: {
        defaultMode: 0o644,
        sources: [
          { serviceAccountToken: { expirationSeconds: PROJECTED_TOKEN_EXPIRATION_SECONDS, path: "token" } },
          { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
          {
            downwardAPI: {
              items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
            },
          },
        ],
      },
    },
  ];
  for (const c of needing)
    c.volumeMounts = [...(c.volumeMounts ?? []), { name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH }];
}
