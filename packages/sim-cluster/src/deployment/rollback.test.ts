// Cases after pkg/controller/deployment/util/deployment_util_test.go's TestLastRevision and rollback.go's outcomes
// (rolled back, revision not found, template unchanged), as tables.
import type { Deployment, ReplicaSet } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { lastRevision, planRollback, rollbackTo } from "./rollback.js";

const rs = (revision: string | undefined, image = "nginx:1"): ReplicaSet =>
  ({
    metadata: {
      name: `rs-${revision}`,
      ...(revision !== undefined && { annotations: { "deployment.kubernetes.io/revision": revision } }),
    },
    spec: {
      template: {
        metadata: { labels: { app: "web", "pod-template-hash": `h${revision}` } },
        spec: { containers: [{ name: "c", image }] },
      },
    },
  }) as unknown as ReplicaSet;

const deployment = (image: string, to?: string): Deployment =>
  ({
    metadata: {
      name: "web",
      annotations: { keep: "1", ...(to !== undefined && { "deprecated.deployment.rollback.to": to }) },
    },
    spec: { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image }] } } },
  }) as unknown as Deployment;

describe("lastRevision (TestLastRevision)", () => {
  it.each([
    { name: "no replica sets", list: [], want: 0n },
    { name: "one", list: [rs("1")], want: 0n },
    { name: "two", list: [rs("1"), rs("2")], want: 1n },
    { name: "three, unordered", list: [rs("3"), rs("1"), rs("2")], want: 2n },
    { name: "without annotations", list: [rs(undefined), rs("4")], want: 0n },
  ])("$name", ({ list, want }) => {
    expect(lastRevision(list)).toBe(want);
  });
});

describe("planRollback (rollback.go)", () => {
  it("no request: nothing to do; an invalid request is no request", () => {
    expect(planRollback(deployment("nginx:2"), [rs("1")])).toBeUndefined();
    expect(rollbackTo(deployment("nginx:2", "x"))).toBeUndefined();
    expect(rollbackTo(deployment("nginx:2", "3"))).toBe(3n);
  });

  it.each([
    {
      name: "revision 0: the last revision's template, without pod-template-hash",
      d: deployment("nginx:2", "0"),
      list: [rs("1", "nginx:1"), rs("2", "nginx:2")],
      event: ["Normal", "DeploymentRollback", 'Rolled back deployment "web" to revision 1'],
      image: "nginx:1",
    },
    {
      name: "a given revision",
      d: deployment("nginx:3", "1"),
      list: [rs("1", "nginx:1"), rs("2", "nginx:2"), rs("3", "nginx:3")],
      event: ["Normal", "DeploymentRollback", 'Rolled back deployment "web" to revision 1'],
      image: "nginx:1",
    },
    {
      name: "no last revision",
      d: deployment("nginx:1", "0"),
      list: [rs("1", "nginx:1")],
      event: ["Warning", "RollbackRevisionNotFound", "Unable to find last revision."],
      image: "nginx:1",
    },
    {
      name: "a revision that does not exist",
      d: deployment("nginx:2", "7"),
      list: [rs("1", "nginx:1"), rs("2", "nginx:2")],
      event: ["Warning", "RollbackRevisionNotFound", "Unable to find the revision to rollback to."],
      image: "nginx:2",
    },
    {
      name: "the same template",
      d: deployment("nginx:1", "1"),
      list: [rs("1", "nginx:1"), rs("2", "nginx:2")],
      event: [
        "Warning",
        "RollbackTemplateUnchanged",
        'The rollback revision contains the same template as current deployment "web"',
      ],
      image: "nginx:1",
    },
  ])("$name", ({ d, list, event, image }) => {
    const plan = planRollback(d, list)!;
    expect([plan.event.type, plan.event.reason, plan.event.message]).toEqual(event);
    expect(plan.deployment.metadata?.annotations).toEqual({ keep: "1" });
    const t = plan.deployment.spec?.template as {
      metadata?: { labels?: Record<string, string> };
      spec?: { containers: { image: string }[] };
    };
    expect(t.spec?.containers[0]?.image).toBe(image);
    expect(t.metadata?.labels).toEqual({ app: "web" });
  });
});
