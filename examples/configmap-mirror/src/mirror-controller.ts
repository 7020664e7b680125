import type { KubeObject } from "@informer-ts/apimachinery";
import { builtinResources } from "@informer-ts/client";
import {
  type Controller,
  EventTypeNormal,
  isControlledBy,
  type Manager,
  newControllerManagedBy,
  type ObjectClient,
  setControllerReference,
} from "@informer-ts/controller";

const { configmaps, secrets } = builtinResources;

/** ConfigMaps with this label set to "true" are mirrored. */
export const MIRROR_LABEL = "mirror.example.com/enabled";

/** The Secret mirroring ConfigMap `name`. */
export const mirrorName = (name: string): string => `${name}-mirror`;

/** A ConfigMap's data as a Secret's (base64 values, as the API expects). */
export function secretData(cm: KubeObject): Record<string, string> {
  const data = (cm.data ?? {}) as Record<string, string>;
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(String(v)).toString("base64")]));
}

/**
 * Registers the mirror controller on `mgr`: every ConfigMap labelled `mirror.example.com/enabled=true` gets a Secret
 * `<name>-mirror` with the same data, controlled by the ConfigMap, so the garbage collector deletes it with its owner.
 * A Secret edited or deleted by someone else is put back; removing the label removes the Secret. Each change is
 * recorded as an Event on the ConfigMap.
 */
export function setupMirrorController(mgr: Manager, client: ObjectClient): Controller {
  const recorder = mgr.getEventRecorderFor("configmap-mirror");
  const cms = mgr.informerFor(configmaps);
  const secretCache = mgr.informerFor(secrets);
  return newControllerManagedBy(mgr)
    .named("configmap-mirror")
    .for(configmaps)
    .owns(secrets)
    .complete(async (req, ctx) => {
      const cm = cms.getIndexer().getByKey(`${req.namespace}/${req.name}`);
      if (cm === undefined) return; // deleted: the garbage collector removes the Secret it controlled
      const name = mirrorName(req.name);
      const current = secretCache.getIndexer().getByKey(`${req.namespace}/${name}`);
      if (cm.metadata?.labels?.[MIRROR_LABEL] !== "true") {
        if (current !== undefined && isControlledBy(current, cm)) {
          await client.delete(secrets, name, { namespace: req.namespace }, ctx.signal);
          recorder.event(
            cm,
            EventTypeNormal,
            "MirrorDeleted",
            `deleted Secret ${name}: the ConfigMap is no longer labelled`,
          );
        }
        return;
      }
      const data = secretData(cm);
      if (current === undefined) {
        const secret: KubeObject = {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name, namespace: req.namespace },
          data,
        };
        setControllerReference(cm, secret, { ownerType: configmaps }); // cached objects carry no apiVersion/kind
        await client.create(secrets, secret, {}, ctx.signal);
        recorder.event(cm, EventTypeNormal, "MirrorCreated", `created Secret ${name}`);
      } else if (JSON.stringify(current.data ?? {}) !== JSON.stringify(data)) {
        await client.update(secrets, { ...current, data }, {}, ctx.signal);
        recorder.event(cm, EventTypeNormal, "MirrorUpdated", `updated Secret ${name}`);
      }
    });
}
