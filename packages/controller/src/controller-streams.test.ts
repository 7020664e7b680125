import { runUntilSettled } from "@informer-ts/cache/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { takeEscapedRxjsErrors } from "../../../test/setup/rxjs-unhandled.js";
import { newControllerManagedBy } from "./builder.js";
import { obj, parents, testEnv, turns } from "./controller.test-util.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("Controller.events$ is read-only and safe (issue 9 item 4)", () => {
  it("a throwing subscriber is logged, keeps receiving, never reaches uncaughtException; others are served", async () => {
    const env = testEnv();
    const c = newControllerManagedBy(env.context)
      .for(parents)
      .complete(() => {});
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    let thrown = 0;
    c.events$.subscribe(() => {
      thrown++;
      throw new Error("consumer bug");
    });
    const seen: string[] = [];
    c.events$.subscribe((e) => seen.push(e.type));
    await env.start();
    const ac = new AbortController();
    const run = c.run(ac.signal);
    await turns();
    env.source(parents).add(obj("a"));
    await turns();
    expect(takeEscapedRxjsErrors()).toEqual([]); // nothing reached RxJS's unhandled-error path (the host)
    ac.abort();
    await runUntilSettled(env.clock, run);
    await env.stop();
    expect(seen).toContain("started");
    expect(thrown).toBe(seen.length);
    expect(errors.mock.calls.filter((call) => String(call[0]).includes("a subscriber of controller"))).toHaveLength(
      thrown,
    );
    expect(takeEscapedRxjsErrors()).toEqual([]);
  });
});
