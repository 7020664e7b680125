// Services' IPAddress objects (pkg/registry/core/service/ipallocator/ipallocator_test.go's `TestAllocateIPAllocator`,
// `TestAllocateReserveIPAllocator` and the Service REST's release on delete, storage_test.go `TestServiceRegistryDelete`)
// through the engine.
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";
import { failure } from "../status-failure.test-util.js";
import { IP_ADDRESS_MANAGED_BY, IP_ALLOCATOR_NAME } from "./service-ip-addresses.js";

const IPS = "ipaddresses.networking.k8s.io";
const engine = () =>
  new SimApiServer({
    clock: new FakeClock(),
    rand: seededRand(5),
    progressNotifyIntervalMs: 0,
    compactionIntervalMs: 0,
  });
const service = (name: string, clusterIP?: string): KubeObject => ({
  metadata: { name },
  spec: { ports: [{ port: 80 }], ...(clusterIP !== undefined && { clusterIP }) },
});
const ipOf = (svc: KubeObject) => (svc.spec as { clusterIP: string }).clusterIP;

describe("Services' IPAddress objects (MultiCIDRServiceAllocator)", () => {
  it("TestAllocateIPAllocator: an allocated cluster IP is an IPAddress whose parentRef is the Service", async () => {
    const e = engine();
    const svc = await e.create("services", "default", service("web"));
    const ip = await e.get(IPS, "", ipOf(svc));
    expect(ip.metadata?.labels).toEqual({
      "ipaddress.kubernetes.io/ip-family": "IPv4",
      [IP_ADDRESS_MANAGED_BY]: IP_ALLOCATOR_NAME,
    });
    expect(ip.spec).toEqual({ parentRef: { group: "", resource: "services", namespace: "default", name: "web" } });
    // The kubernetes Service's address is held from the start.
    expect((await e.get(IPS, "", "10.96.0.1")).spec).toMatchObject({ parentRef: { name: "kubernetes" } });
  });

  it("TestAllocateReserveIPAllocator: an address already held is refused with 422 and nothing is stored", async () => {
    const e = engine();
    await e.create("services", "default", service("a", "10.96.100.100"));
    const s = await failure(e.create("services", "default", service("b", "10.96.100.100")));
    expect(s.code).toBe(422);
    expect(s.message).toBe(
      'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.100.100"}: failed to allocate IP 10.96.100.100: provided IP is already allocated',
    );
    expect(await failure(e.get("services", "default", "b"))).toMatchObject({ code: 404 });
    // A user's IPAddress holds its address too: the allocator skips it and a Service asking for it is refused.
    await e.create(IPS, "", {
      metadata: { name: "10.96.100.101" },
      spec: { parentRef: { group: "example.com", resource: "things", name: "x" } },
    });
    expect((await failure(e.create("services", "default", service("c", "10.96.100.101")))).code).toBe(422);
    // dry-run answers the same and stores nothing.
    expect((await failure(e.create("services", "default", service("c", "10.96.100.100"), { dryRun: true }))).code).toBe(
      422,
    );
  });

  it("TestServiceRegistryDelete: deleting the Service deletes its IPAddress; a headless Service has none", async () => {
    const e = engine();
    const svc = await e.create("services", "default", service("web"));
    await e.delete("services", "default", "web");
    expect(await failure(e.get(IPS, "", ipOf(svc)))).toMatchObject({ code: 404 });
    const before = (await e.list(IPS, "")).items.length;
    await e.create("services", "default", service("headless", "None"));
    expect((await e.list(IPS, "")).items).toHaveLength(before);
    // The freed address can be asked for again.
    await e.create("services", "default", service("again", ipOf(svc)));
  });
});
