// kubectl against the simulator with a cluster inside it (sim-cluster over HTTP, in real time): the batch and
// StatefulSet commands a user types — create job, get jobs,pods, create cronjob, scale sts.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useKubectlCluster } from "./kubectl-cluster-harness.js";

const { k, require: requireKubectl, cluster } = useKubectlCluster();

const STS = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 0}}
  template:
    metadata: {labels: {app: db}}
    spec: {terminationGracePeriodSeconds: 1, containers: [{name: db, image: postgres}]}
`;

const CRON = `apiVersion: batch/v1
kind: CronJob
metadata: {name: tick, namespace: default}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: OnFailure, containers: [{name: tick, image: busybox}]}
`;

describe("kubectl with sim-cluster: Jobs, CronJobs, StatefulSets (e2e apps basics)", () => {
  it("kubectl create job pi; wait --for=condition=complete; get jobs,pods shows it Complete and its pod Completed", async (ctx) => {
    requireKubectl(ctx);
    expect(await k("create", "job", "pi", "--image=busybox")).toContain("job.batch/pi created");
    expect(await k("wait", "--for=condition=complete", "job/pi", "--timeout=60s")).toContain(
      "job.batch/pi condition met",
    );
    const out = await k("get", "jobs,pods", "-l", "batch.kubernetes.io/job-name=pi");
    expect(out).toMatch(/pod\/pi-\S+\s+0\/1\s+Completed\s+0/);
    const jobs = await k("get", "jobs", "pi", "--no-headers");
    expect(jobs).toMatch(/^pi\s+Complete\s+1\/1\s+/);
    expect(await k("get", "job", "pi", "-o", "jsonpath={.status.succeeded}")).toBe("1");
  });

  it("kubectl delete job pi cascades to its pods (test/e2e/apps/job.go should delete a job, with kubectl)", async (ctx) => {
    requireKubectl(ctx);
    await k("delete", "job", "pi", "--wait=true", "--timeout=60s");
    await expect
      .poll(
        async () =>
          (
            await k("get", "pods", "-l", "batch.kubernetes.io/job-name=pi", "--no-headers", "--ignore-not-found")
          ).trim(),
        {
          timeout: 30_000,
          interval: 200,
        },
      )
      .toBe("");
  });

  it("kubectl apply a CronJob; kubectl get cronjob shows its schedule", async (ctx) => {
    // `kubectl create cronjob` sends protobuf, which the simulator does not read yet: applied as YAML instead.
    requireKubectl(ctx);
    const file = join(cluster().sim.dir, "cron.yaml");
    writeFileSync(file, CRON);
    expect(await k("apply", "-f", file)).toContain("cronjob.batch/tick created");
    // The simulator's table for cronjobs has only NAME and AGE (upstream adds SCHEDULE, SUSPEND, ACTIVE, …).
    expect(await k("get", "cronjobs", "tick", "-o", "jsonpath={.spec.schedule}")).toBe("* * * * *");
  });

  it("kubectl apply a StatefulSet; rollout status completes; kubectl scale sts; pods in ordinal order", async (ctx) => {
    requireKubectl(ctx);
    const file = join(cluster().sim.dir, "sts.yaml");
    writeFileSync(file, STS);
    expect(await k("apply", "-f", file)).toContain("statefulset.apps/db created");
    expect(await k("rollout", "status", "sts/db", "--timeout=60s")).toMatch(
      /partitioned roll out complete|rolling update complete/,
    );
    expect(await k("scale", "sts/db", "--replicas=4")).toContain("statefulset.apps/db scaled");
    expect(await k("rollout", "status", "sts/db", "--timeout=60s")).toMatch(/complete/);
    const pods = (
      await k(
        "get",
        "pods",
        "-l",
        "app=db",
        "-o",
        "custom-columns=NAME:.metadata.name,PHASE:.status.phase",
        "--no-headers",
      )
    )
      .trim()
      .split("\n")
      .map((l) => l.trim().split(/\s+/));
    expect(pods).toEqual([
      ["db-0", "Running"],
      ["db-1", "Running"],
      ["db-2", "Running"],
      ["db-3", "Running"],
    ]);
    expect(await k("get", "sts", "db", "-o", "jsonpath={.status.readyReplicas}")).toBe("4");
    await k("scale", "sts/db", "--replicas=1");
    await expect
      .poll(async () => (await k("get", "pods", "-l", "app=db", "--no-headers", "-o", "name")).trim(), {
        timeout: 30_000,
        interval: 200,
      })
      .toBe("pod/db-0");
  });
});
