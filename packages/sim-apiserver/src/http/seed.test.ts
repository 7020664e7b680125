import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseApiserverFlags } from "../cli/cli-flags.js";
import { loadSeedFile, parseSeed } from "./seed.js";

describe("loadSeedFile", () => {
  it("parses the file, and names the file once with the reason when it cannot be read", () => {
    const dir = mkdtempSync(join(tmpdir(), "seed-file-"));
    const file = join(dir, "s.yaml");
    writeFileSync(file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    expect(loadSeedFile(file)).toEqual([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } }]);
    const missing = join(dir, "missing.yaml");
    expect(() => loadSeedFile(missing)).toThrow(`cannot read ${missing}: ENOENT: no such file or directory`);
    expect(() => loadSeedFile(dir)).toThrow(`cannot read ${dir}: EISDIR: illegal operation on a directory`);
  });
});

describe("parseSeed", () => {
  const cm = (n: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: n, namespace: "default" } });
  it("JSON object, array, List and typed list", () => {
    expect(parseSeed(JSON.stringify(cm("a")))).toEqual([cm("a")]);
    expect(parseSeed(JSON.stringify([cm("a"), cm("b")]))).toEqual([cm("a"), cm("b")]);
    expect(parseSeed(JSON.stringify({ apiVersion: "v1", kind: "List", items: [cm("a")] }))).toEqual([cm("a")]);
    expect(
      parseSeed(
        JSON.stringify({ apiVersion: "v1", kind: "ConfigMapList", metadata: {}, items: [{ metadata: { name: "c" } }] }),
      ),
    ).toEqual([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }]);
  });
  it("multi-document YAML, empty documents skipped", () => {
    const text =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n---\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b, namespace: default}\n";
    expect(parseSeed(text)).toEqual([cm("a"), cm("b")]);
  });
  it("errors name the bad document", () => {
    expect(() => parseSeed("{nope", "f.json")).toThrow(/^f\.json: invalid JSON/);
    expect(() => parseSeed("metadata: {name: x}\n", "f.yaml")).toThrow("f.yaml#1: object without kind/apiVersion");
    expect(() => parseSeed("[1]", "f.json")).toThrow("f.json[0]: expected an object");
  });
});

describe("parseApiserverFlags", () => {
  it("defaults", () => {
    expect(parseApiserverFlags([])).toEqual({
      host: "127.0.0.1",
      authorizationMode: "AlwaysAllow",
      port: 0,
      tls: false,
      tokens: [],
      clientCertAuth: false,
      watchList: true,
      httpLog: false,
      minRequestTimeoutSeconds: 1800,
      faults: [],
      help: false,
    });
  });
  it("every flag", () => {
    const f = parseApiserverFlags([
      "--port",
      "8080",
      "--seed",
      "s.yaml",
      "--tls",
      "--token",
      "a",
      "--token",
      "b",
      "--client-cert-auth",
      "--kubeconfig-out",
      "k.yaml",
      "--no-watch-list",
      "--http-log",
      "--min-request-timeout",
      "60",
      "--rand-seed",
      "7",
      "--fault",
      '{"type":"apf-429"}',
      "--cost-model",
      "--trace-log",
      "250",
    ]);
    expect(f).toMatchObject({
      port: 8080,
      seed: "s.yaml",
      tls: true,
      tokens: ["a", "b"],
      clientCertAuth: true,
      kubeconfigOut: "k.yaml",
      watchList: false,
      httpLog: true,
      minRequestTimeoutSeconds: 60,
      randSeed: 7,
      faults: [{ type: "apf-429" }],
      costModel: true,
      traceLogThresholdMs: 250,
    });
  });
  it("bad input names the flag", () => {
    expect(() => parseApiserverFlags(["--port", "x"])).toThrow("--port: expected a non-negative integer");
    expect(() => parseApiserverFlags(["--port", "70000"])).toThrow("--port: 70000 is not a valid port");
    expect(() => parseApiserverFlags(["--fault", "{"])).toThrow(/--fault: invalid JSON/);
    expect(() => parseApiserverFlags(["--client-cert-auth"])).toThrow("--client-cert-auth needs --tls");
    expect(() => parseApiserverFlags(["--bogus"])).toThrow(/bogus/);
    expect(() => parseApiserverFlags(["--trace-log", "1.5"])).toThrow("--trace-log: expected a non-negative integer");
  });
});
