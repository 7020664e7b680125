// The Get strategy (kubelet's simpleConfigMapManager / simpleSecretManager): no cache, every use is a GET.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { ConfigMapManager, KubeletPod, ObjectClient } from "./manager.js";

/**
 * The `Get` change-detection strategy: {@link ConfigMapManager.getObject} sends a GET without a resourceVersion
 * (served from storage: a quorum read of etcd) every time; registering pods does nothing.
 */
export class SimpleManager implements ConfigMapManager {
  readonly strategy = "Get" as const;

  constructor(private readonly client: ObjectClient) {}

  getObject(namespace: string, name: string): Promise<KubeObject> {
    return this.client.get(namespace, name, {});
  }

  registerPod(_pod: KubeletPod): void {}

  unregisterPod(_pod: KubeletPod): void {}

  async stop(): Promise<void> {}
}
