import { type KubeObject, statusOf } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";
import { convertSecretStringData } from "./secret-conversion.js";

function setup() {
  const clock = new FakeClock();
  return new SimApiServer({ clock, rand: seededRand(9), compactionIntervalMs: 0, progressNotifyIntervalMs: 0 });
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

describe("convertSecretStringData", () => {
  it("merges stringData into data base64-encoded (UTF-8), overwriting same keys, and drops stringData", () => {
    const s: KubeObject = {
      metadata: { name: "s" },
      data: { a: b64("old"), keep: b64("k") },
      stringData: { a: "néw" },
    };
    convertSecretStringData(s);
    expect(s).toEqual({ metadata: { name: "s" }, data: { a: b64("néw"), keep: b64("k") } });
    const empty: KubeObject = { metadata: { name: "e" }, stringData: {} };
    convertSecretStringData(empty);
    expect(empty).toEqual({ metadata: { name: "e" } });
  });

  it("a stringData that is not a map of strings is a 400 naming the problem", () => {
    const bad = (stringData: unknown) => () => convertSecretStringData({ metadata: { name: "b" }, stringData });
    expect(bad("x")).toThrow(/cannot unmarshal string into Go struct field Secret.stringData/);
    expect(bad({ k: 1 })).toThrow(/cannot unmarshal number .*\(key "k"\)/);
    let thrown: unknown;
    try {
      bad([])();
    } catch (err) {
      thrown = err;
    }
    expect(statusOf(thrown)).toMatchObject({ code: 400, reason: "BadRequest" });
  });
});

describe("Secrets with stringData through the registry", () => {
  it("create, update, merge patch and apply store stringData in data and never return it", async () => {
    const engine = setup();
    const created = await engine.create("secrets", "default", {
      metadata: { name: "s" },
      data: { a: b64("1") },
      stringData: { b: "two" },
    });
    expect(created.data).toEqual({ a: b64("1"), b: b64("two") });
    expect(created).not.toHaveProperty("stringData");
    const got = await engine.get("secrets", "default", "s");
    expect(got).not.toHaveProperty("stringData");
    expect(got.data).toEqual({ a: b64("1"), b: b64("two") });

    const updated = await engine.update("secrets", "default", "s", { ...got, stringData: { a: "uno" } });
    expect(updated.data).toEqual({ a: b64("uno"), b: b64("two") });
    expect(updated).not.toHaveProperty("stringData");

    const patched = await engine.patch(
      "secrets",
      "default",
      "s",
      "application/merge-patch+json",
      JSON.stringify({ stringData: { c: "drei" } }),
    );
    expect(patched.data).toEqual({ a: b64("uno"), b: b64("two"), c: b64("drei") });
    expect(patched).not.toHaveProperty("stringData");

    const applied = await engine.patch(
      "secrets",
      "default",
      "t",
      "application/apply-patch+yaml",
      JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "t" }, stringData: { x: "y" } }),
      { fieldManager: "test" },
    );
    expect(applied.data).toEqual({ x: b64("y") });
    expect(applied).not.toHaveProperty("stringData");
    const dry = await engine.create(
      "secrets",
      "default",
      { metadata: { name: "d" }, stringData: { k: "v" } },
      { dryRun: true },
    );
    expect(dry.data).toEqual({ k: b64("v") });
    expect(dry).not.toHaveProperty("stringData");
  });
});
