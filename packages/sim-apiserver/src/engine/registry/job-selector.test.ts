import { fc, test } from "@fast-check/vitest";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";
import { generateJobSelector, JOB_CONTROLLER_UID_LABEL, JOB_NAME_LABEL } from "./job-selector.js";

function setup(): SimApiServer {
  return new SimApiServer({
    clock: new FakeClock(),
    rand: seededRand(4),
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
  });
}

const CONTAINERS = [{ name: "c", image: "busybox" }];

// Upstream: TestJobStrategy_PrepareForCreate and TestJobStrategy's generated-selector cases
// (kubernetes/kubernetes pkg/registry/batch/job/strategy_test.go).
describe("TestJobStrategy (pkg/registry/batch/job/strategy_test.go): generated selector", () => {
  it("a Job without manualSelector gets the controller-uid selector and the four template labels", async () => {
    const engine = setup();
    const job = await engine.create("jobs.batch", "default", {
      metadata: { name: "pi" },
      spec: {
        template: { metadata: { labels: { app: "pi" } }, spec: { containers: CONTAINERS, restartPolicy: "Never" } },
      },
    });
    const uid = job.metadata?.uid ?? "";
    expect(uid).not.toBe("");
    const spec = job.spec as {
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> } };
    };
    expect(spec.selector).toEqual({ matchLabels: { [JOB_CONTROLLER_UID_LABEL]: uid } });
    expect(spec.template.metadata.labels).toEqual({
      app: "pi",
      "job-name": "pi",
      [JOB_NAME_LABEL]: "pi",
      "controller-uid": uid,
      [JOB_CONTROLLER_UID_LABEL]: uid,
    });
  });
  it("generateName: the job-name labels carry the generated name", async () => {
    const engine = setup();
    const job = await engine.create("jobs.batch", "default", {
      metadata: { generateName: "pi-" },
      spec: { template: { spec: { containers: CONTAINERS, restartPolicy: "Never" } } },
    });
    const name = job.metadata?.name ?? "";
    expect(name).toMatch(/^pi-[a-z0-9]{5}$/);
    const labels = (job.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata
      .labels;
    expect(labels[JOB_NAME_LABEL]).toBe(name);
    expect(labels["job-name"]).toBe(name);
  });
  it("manualSelector: true keeps the user's selector and labels", async () => {
    const engine = setup();
    const job = await engine.create("jobs.batch", "default", {
      metadata: { name: "manual" },
      spec: {
        manualSelector: true,
        selector: { matchLabels: { app: "m" } },
        template: { metadata: { labels: { app: "m" } }, spec: { containers: CONTAINERS, restartPolicy: "Never" } },
      },
    });
    const spec = job.spec as { selector: unknown; template: { metadata: { labels: unknown } } };
    expect(spec.selector).toEqual({ matchLabels: { app: "m" } });
    expect(spec.template.metadata.labels).toEqual({ app: "m" });
  });
  it("labels and a selector the user set are kept (a conflict is validation's), the uid label is added", () => {
    const job = {
      metadata: { name: "j", uid: "u-1" },
      spec: {
        selector: { matchLabels: { app: "j" }, matchExpressions: [{ key: "tier", operator: "Exists" }] },
        template: { metadata: { labels: { "job-name": "other" } } },
      },
    };
    generateJobSelector(job);
    expect(job.spec.selector).toEqual({
      matchLabels: { app: "j", [JOB_CONTROLLER_UID_LABEL]: "u-1" },
      matchExpressions: [{ key: "tier", operator: "Exists" }],
    });
    expect(job.spec.template.metadata.labels).toEqual({
      "job-name": "other",
      [JOB_NAME_LABEL]: "j",
      "controller-uid": "u-1",
      [JOB_CONTROLLER_UID_LABEL]: "u-1",
    });
  });
});

describe("generateJobSelector: properties", () => {
  const labels = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^[a-z0-9]{0,6}$/));
  test.prop([fc.stringMatching(/^[a-z]{1,8}$/), fc.uuid(), labels])(
    "the selector always matches the template it leaves (the Job owns its pods), user labels untouched",
    (name, uid, user) => {
      const job = { metadata: { name, uid }, spec: { template: { metadata: { labels: { ...user } } } } };
      generateJobSelector(job);
      const out = job.spec as unknown as {
        selector: { matchLabels: Record<string, string> };
        template: { metadata: { labels: Record<string, string> } };
      };
      for (const [k, v] of Object.entries(out.selector.matchLabels)) {
        expect(out.template.metadata.labels[k]).toBe(v);
      }
      for (const [k, v] of Object.entries(user)) expect(out.template.metadata.labels[k]).toBe(v);
    },
  );
});
