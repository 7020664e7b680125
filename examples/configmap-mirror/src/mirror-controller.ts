import { isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import { builtinResources } from "@informer-ts/client";
import {
  type Controller,
  type ControllerBuilder,
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
 * recorded as an Event on the ConfigMap. `builder` makes the controller's builder (default
 * `newControllerManagedBy(mgr)`; a property test passes the kit's observed `c.builder`).
 */
export function setupMirrorController(
  mgr: Manager,
  client: ObjectClient,
  builder: () => ControllerBuilder = () => newControllerManagedBy(mgr),
): Controller {
  const recorder = mgr.getEventRecorderFor("configmap-mirror");
  const cms = mgr.informerFor(configmaps);
  const secretCache = mgr.informerFor(secrets);
  return builder()
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
        // "Absent from the cache" is not "absent": the ConfigMap cache may be stale (its watch is reconnecting) and
        // still hold a ConfigMap that is gone, whose Secret the garbage collector deleted — that delete is what
        // enqueued us. Creating from the cache would re-create a Secret owned by a dead uid, which the collector
        // deletes again, which enqueues us again: a create/delete churn for as long as the cache is stale. So confirm
        // the owner with a live read (controller-runtime's APIReader) before creating its child.
        const live = await mgr
          .getAPIReader()
          .get(configmaps, req.name, { namespace: req.namespace }, ctx.signal)
          .catch((err: unknown) => {
            if (isNotFound(err)) return undefined;
            throw err;
          });
        if (live === undefined || live.metadata?.uid !== cm.metadata?.uid) return; // the cache catches up and requeues
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
