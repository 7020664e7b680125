import { describe, expect, it } from "vitest";
import { attemptCredentials, DEFAULT_ACCEPT } from "./auth-headers.js";

describe("attemptCredentials", () => {
  it("sends user agent, default Accept, gzip and the content type", async () => {
    const c = await attemptCredentials({ server: "http://x" }, { userAgent: "ua/1", contentType: "application/json" });
    expect(c.headers).toEqual({
      "user-agent": "ua/1",
      accept: DEFAULT_ACCEPT,
      "accept-encoding": "gzip",
      "content-type": "application/json",
    });
    expect(c.cert).toBeUndefined();
  });

  it("a request's Accept replaces the default; disableCompression drops gzip; extra headers are lower-cased", async () => {
    const c = await attemptCredentials(
      { server: "http://x", disableCompression: true, headers: { "Impersonate-User": "alice" } },
      { userAgent: "ua", accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1" },
    );
    expect(c.headers).toEqual({
      "user-agent": "ua",
      accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
      "impersonate-user": "alice",
    });
  });

  it("authorization precedence: auth provider, then token provider, then token, then basic auth", async () => {
    const basic = { server: "http://x", username: "u", password: "p" };
    const auth = async (extra: object) =>
      (await attemptCredentials({ ...basic, ...extra }, { userAgent: "ua" })).headers.authorization;
    expect(await auth({})).toBe(`Basic ${Buffer.from("u:p").toString("base64")}`);
    expect(await auth({ token: "t" })).toBe("Bearer t");
    expect(await auth({ token: "t", tokenProvider: () => "tp" })).toBe("Bearer tp");
    expect(await auth({ token: "t", tokenProvider: () => "" })).toBe("Bearer t");
    expect(
      await auth({
        token: "t",
        tokenProvider: () => "tp",
        authProvider: async () => ({ headers: { Authorization: "X y" } }),
      }),
    ).toBe("X y");
  });

  it("returns the client certificate an auth provider supplies; a throwing provider rejects", async () => {
    const c = await attemptCredentials(
      { server: "https://x", authProvider: async () => ({ clientCert: "CERT", clientKey: "KEY" }) },
      { userAgent: "ua" },
    );
    expect(c).toMatchObject({ cert: "CERT", key: "KEY" });
    const boom = new Error("exec plugin failed");
    await expect(
      attemptCredentials({ server: "https://x", authProvider: () => Promise.reject(boom) }, { userAgent: "ua" }),
    ).rejects.toBe(boom);
  });
});
