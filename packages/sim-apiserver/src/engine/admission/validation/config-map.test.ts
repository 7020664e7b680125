// Ports of pkg/apis/core/validation's ConfigMap and Secret tables (validation_test.go: TestValidateConfigMap,
// TestValidateConfigMapUpdate, TestValidateSecret, TestValidateSecretUpdate) and of apimachinery's
// TestIsConfigMapKey, for the rules beyond object metadata.
import { fieldErrorString, type KubeObject } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import {
  isConfigMapKey,
  MAX_SECRET_SIZE,
  validateConfigMap,
  validateConfigMapUpdate,
  validateSecret,
  validateSecretUpdate,
} from "./config-map.js";

const cm = (data?: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: "x", namespace: "default" },
  ...(data !== undefined && { data }),
  ...extra,
});
const strings = (errs: ReturnType<typeof validateConfigMap>) => errs.map(fieldErrorString);

describe("TestIsConfigMapKey", () => {
  it.each([
    "a",
    "good",
    "good-good",
    "still.good",
    "this.is.also.good",
    ".so.is.this",
    "THIS_IS_GOOD",
    "so_is_this_17",
  ])("good key %s", (key) => expect(isConfigMapKey(key)).toEqual([]));
  it.each([
    ["", 1],
    ["bad_key*", 1],
    ["a b", 1],
    ["..", 1],
    ["..bad", 1],
    [".", 1],
    ["a".repeat(254), 1],
  ])("bad key %j", (key, n) => expect(isConfigMapKey(key as string).length).toBeGreaterThanOrEqual(n as number));
});

describe("TestValidateConfigMap", () => {
  it("valid: keys with dots, dashes, underscores; binaryData beside data", () => {
    expect(validateConfigMap(cm({ "key.name": "a", KEY_NAME: "b", "key-name": "c" }))).toEqual([]);
    expect(validateConfigMap(cm({ a: "1" }, { binaryData: { b: "AAE=" } }))).toEqual([]);
  });

  it("empty key: upstream's message, on data[]", () => {
    expect(strings(validateConfigMap(cm({ "": "v" })))).toEqual([
      `data[]: Invalid value: "": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    ]);
  });

  it("bad keys: a space, a leading '..', a key in both data and binaryData", () => {
    const errs = validateConfigMap(cm({ "a b": "v", "..x": "v", both: "1" }, { binaryData: { both: "AA==" } }));
    expect(errs.map((e) => [e.field, e.detail])).toEqual([
      ["data[a b]", expect.stringContaining("a valid config key")],
      ["data[..x]", "must not start with '..'"],
      ["data[both]", "duplicate of key present in binaryData"],
    ]);
  });

  it("the 1 MiB limit counts keys and values", () => {
    expect(validateConfigMap(cm({ k: "x".repeat(MAX_SECRET_SIZE - 1) }))).toEqual([]);
    expect(strings(validateConfigMap(cm({ k: "x".repeat(MAX_SECRET_SIZE) })))).toEqual([
      ": Too long: may not be more than 1048576 bytes",
    ]);
  });
});

describe("TestValidateConfigMapUpdate", () => {
  const immutable = cm({ k: "v" }, { immutable: true });
  it("a mutable ConfigMap may change data and become immutable", () => {
    expect(validateConfigMapUpdate(cm({ k: "w" }, { immutable: true }), cm({ k: "v" }))).toEqual([]);
  });
  it("an immutable one may change only metadata", () => {
    expect(validateConfigMapUpdate({ ...immutable, metadata: { name: "x", labels: { a: "b" } } }, immutable)).toEqual(
      [],
    );
  });
  it("immutable: data changes and true → false are forbidden", () => {
    expect(strings(validateConfigMapUpdate(cm({ k: "w" }, { immutable: true }), immutable))).toEqual([
      "data: Forbidden: field is immutable when `immutable` is set",
    ]);
    expect(strings(validateConfigMapUpdate(cm({ k: "v" }, { immutable: false }), immutable))).toEqual([
      "immutable: Forbidden: field is immutable when `immutable` is set",
    ]);
    expect(
      strings(validateConfigMapUpdate(cm({ k: "v" }, { binaryData: { b: "AA==" }, immutable: true }), immutable)),
    ).toEqual(["binaryData: Forbidden: field is immutable when `immutable` is set"]);
  });
});

describe("TestValidateSecret", () => {
  const secret = (data: Record<string, string>, type = "Opaque"): KubeObject => ({
    metadata: { name: "s", namespace: "default" },
    type,
    data,
  });
  it("valid, bad key, and the 1 MiB limit of decoded data", () => {
    expect(validateSecret(secret({ "tls.crt": "AA==" }))).toEqual([]);
    expect(validateSecret(secret({ "a b": "AA==" })).map((e) => e.field)).toEqual(["data[a b]"]);
    const big = Buffer.alloc(MAX_SECRET_SIZE + 1).toString("base64");
    expect(strings(validateSecret(secret({ k: big })))).toEqual(["data: Too long: may not be more than 1048576 bytes"]);
  });
  it("typed secrets need their keys", () => {
    expect(strings(validateSecret(secret({}, "kubernetes.io/tls")))).toEqual([
      "data[tls.crt]: Required value",
      "data[tls.key]: Required value",
    ]);
  });
});

describe("TestValidateSecretUpdate", () => {
  const s = (data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({
    metadata: { name: "s" },
    type: "Opaque",
    data,
    ...extra,
  });
  it("type is immutable; an immutable secret keeps its data and its flag", () => {
    expect(strings(validateSecretUpdate(s({}, { type: "example.com/t" }), s({})))).toEqual([
      'type: Invalid value: "example.com/t": field is immutable',
    ]);
    const frozen = s({ k: "AA==" }, { immutable: true });
    expect(strings(validateSecretUpdate(s({ k: "AQ==" }, { immutable: true }), frozen))).toEqual([
      "data: Forbidden: field is immutable when `immutable` is set",
    ]);
    expect(strings(validateSecretUpdate(s({ k: "AA==" }), frozen))).toEqual([
      "immutable: Forbidden: field is immutable when `immutable` is set",
    ]);
  });
});
