import { describe, expect, it } from "vitest";
import { HttpFaultInjector } from "../engine/filters/http-faults.js";
import { createAdminHandler } from "./admin.js";

describe("admin handler (/_sim)", () => {
  it("faults: add, list, delete; engine endpoints 404 without hooks", async () => {
    const f = new HttpFaultInjector();
    const h = createAdminHandler(f);
    const q = new URLSearchParams();
    expect(await h("", "GET", undefined, q)).toEqual({ body: { endpoints: ["/_sim/faults"] } });
    expect(await h("faults", "POST", { type: "apf-429" }, q)).toEqual({ status: 201, body: { id: 1 } });
    expect(await h("faults", "POST", { type: "nope" }, q)).toMatchObject({ status: 400 });
    expect(((await h("faults", "GET", undefined, q)).body as { faults: unknown[] }).faults).toHaveLength(1);
    expect(await h("faults", "DELETE", undefined, new URLSearchParams("id=1"))).toEqual({ body: { removed: 1 } });
    expect(await h("compact", "POST", {}, q)).toMatchObject({ status: 404 });
    expect(await h("faults", "PUT", {}, q)).toMatchObject({ status: 405 });
  });
  it("engine hooks are called with the body", async () => {
    const calls: unknown[] = [];
    const h = createAdminHandler(new HttpFaultInjector(), {
      compact: (b) => {
        calls.push(["compact", b]);
        return { compacted: 5 };
      },
      reinit: (b) => {
        calls.push(["reinit", b]);
        throw new Error("unknown resource widgets");
      },
      accounting: () => ({ requests: 3 }),
    });
    const q = new URLSearchParams();
    expect(await h("compact", "POST", { resourceVersion: "5" }, q)).toEqual({ body: { compacted: 5 } });
    expect(await h("reinit", "POST", { resource: "widgets" }, q)).toEqual({
      status: 400,
      body: { error: "unknown resource widgets" },
    });
    expect(await h("accounting", "GET", undefined, q)).toEqual({ body: { requests: 3 } });
    expect(calls).toEqual([
      ["compact", { resourceVersion: "5" }],
      ["reinit", { resource: "widgets" }],
    ]);
  });
});
