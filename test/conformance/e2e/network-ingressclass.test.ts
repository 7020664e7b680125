// test/e2e/network/ingressclass.go's `IngressClass [Feature:Ingress]` cases — the DefaultIngressClass admission
// plugin — re-implemented with @kubernetes/client-node against the simulator over HTTP. Upstream runs them serially
// (a default class is cluster-wide); here the file has a server of its own and each test deletes its classes.
import type { V1Ingress, V1IngressClass } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

const IS_DEFAULT = "ingressclass.kubernetes.io/is-default-class";
const api = () => c.kc.makeApiClient(c.k8s.NetworkingV1Api);

/** `createIngressClass`: a class for `example.com/controller`, annotated as the default when `isDefault`. */
function createIngressClass(name: string, isDefault: boolean, uniqueName: string): Promise<V1IngressClass> {
  return api().createIngressClass({
    body: {
      metadata: {
        name,
        labels: { ingressclass: uniqueName, "special-label": "generic" },
        ...(isDefault && { annotations: { [IS_DEFAULT]: "true" } }),
      },
      spec: { controller: "example.com/controller" },
    },
  });
}

/** `createBasicIngress`: `ingress1` with a default backend and no class. */
function createBasicIngress(namespace: string): Promise<V1Ingress> {
  return api().createNamespacedIngress({
    namespace,
    body: {
      metadata: { name: "ingress1" },
      spec: { defaultBackend: { service: { name: "defaultbackend", port: { number: 80 } } } },
    },
  });
}

/** Runs `body` with the classes it creates deleted afterwards (`ginkgo.DeferCleanup(deleteIngressClass, …)`). */
async function withClasses(body: (created: string[]) => Promise<void>): Promise<void> {
  const created: string[] = [];
  try {
    await body(created);
  } finally {
    for (const name of created) await api().deleteIngressClass({ name });
  }
}

let unique = 0;

describe("[sig-network] IngressClass [Feature:Ingress] (network/ingressclass.go)", () => {
  it("should set default value on new IngressClass", async () => {
    const ns = await c.namespace("ingressclass");
    await withClasses(async (created) => {
      const ic1 = await createIngressClass("ingressclass1", true, `ic-${++unique}`);
      created.push(ic1.metadata!.name!);
      const ingress = await createBasicIngress(ns);
      expect(ingress.spec?.ingressClassName).toBe(ic1.metadata?.name);
      await api().deleteNamespacedIngress({ namespace: ns, name: ingress.metadata!.name! });
    });
  });

  it("should not set default value if no default IngressClass", async () => {
    const ns = await c.namespace("ingressclass");
    await withClasses(async (created) => {
      const ic1 = await createIngressClass("ingressclass1", false, `ic-${++unique}`);
      created.push(ic1.metadata!.name!);
      const ingress = await createBasicIngress(ns);
      expect(ingress.spec?.ingressClassName).toBeUndefined();
      await api().deleteNamespacedIngress({ namespace: ns, name: ingress.metadata!.name! });
    });
  });

  it("should choose the one with the later CreationTimestamp, if equal the one with the lower name when two ingressClasses are marked as default", async () => {
    const ns = await c.namespace("ingressclass");
    await withClasses(async (created) => {
      const special = `ic-${++unique}`;
      const ic1 = await createIngressClass("ingressclass1", true, special);
      created.push(ic1.metadata!.name!);
      const ic2 = await createIngressClass("ingressclass2", true, special);
      created.push(ic2.metadata!.name!);
      const at = (ic: V1IngressClass) => new Date(ic.metadata?.creationTimestamp ?? 0).getTime();
      const expectedName = at(ic2) > at(ic1) ? ic2.metadata?.name : ic1.metadata?.name;
      const classes = (await api().listIngressClass()).items;
      expect(classes.filter((x) => x.metadata?.annotations?.[IS_DEFAULT] === "true")).toHaveLength(2);
      const ingress = await createBasicIngress(ns);
      expect(ingress.spec?.ingressClassName).toBe(expectedName);
    });
  });
});
