// test/e2e/auth/service_accounts.go, the case that needs the root-CA publisher: re-implemented with
// @kubernetes/client-node against the simulator over HTTP with its cluster running (sim-cluster's
// root-ca-cert-publisher), as against `pnpm apiserver --cluster`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, type E2eCluster, startE2eCluster } from "./harness.js";

const ROOT_CA = "-----BEGIN CERTIFICATE-----\nZTJlLXJvb3QtY2E=\n-----END CERTIFICATE-----\n";
const POLL = { timeout: 20_000, interval: 50 };

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster({ cluster: { nodes: 1, rootCA: ROOT_CA } });
});
afterAll(async () => {
  await c.close();
});

describe("[sig-auth] ServiceAccounts, with the root-CA publisher (auth/service_accounts.go)", () => {
  it("should guarantee kube-root-ca.crt exist in any namespace", async () => {
    const ns = await c.namespace("root-ca");
    const name = "kube-root-ca.crt";
    const read = async () => {
      try {
        return await c.core.readNamespacedConfigMap({ namespace: ns, name });
      } catch (err) {
        if (codeOf(err) === 404) return undefined;
        throw err;
      }
    };
    // Every namespace gets the configmap, with the cluster's CA bundle.
    await expect.poll(async () => (await read())?.data?.["ca.crt"], POLL).toBe(ROOT_CA);
    // Deleted, it is recreated.
    await c.core.deleteNamespacedConfigMap({ namespace: ns, name });
    await expect.poll(async () => (await read())?.data?.["ca.crt"], POLL).toBe(ROOT_CA);
    // Changed, it is reconciled back.
    const cm = await read();
    await c.core.replaceNamespacedConfigMap({ namespace: ns, name, body: { ...cm, data: {} } });
    await expect.poll(async () => (await read())?.data?.["ca.crt"], POLL).toBe(ROOT_CA);
    // The service-account controller gave the namespace its `default` account too.
    await expect
      .poll(
        async () => (await c.core.listNamespacedServiceAccount({ namespace: ns })).items.map((s) => s.metadata?.name),
        POLL,
      )
      .toContain("default");
  });
});
