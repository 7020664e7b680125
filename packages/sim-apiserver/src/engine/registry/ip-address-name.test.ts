import { describe, expect, it } from "vitest";
import { nameIsIPAddress } from "./ip-address-name.js";

// upstream: pkg/apis/networking/validation/validation_test.go (TestValidateIPAddress, the name cases)
describe("ValidateIPAddressName (networking validation)", () => {
  it("TestValidateIPAddress: canonical IPv4 and IPv6 addresses are valid names", () => {
    for (const name of ["192.168.1.1", "255.255.255.255", "2001:db8::1", "fe80::42:1dff:fe84:f9e2", "::1"])
      expect(nameIsIPAddress(name, false), name).toEqual([]);
  });

  it("TestValidateIPAddress: a non-address or a non-canonical address is rejected", () => {
    expect(nameIsIPAddress("my-ip", false)).toEqual(['ParseAddr("my-ip"): unable to parse IP']);
    expect(nameIsIPAddress("2001:DB8::1", false)).toEqual(["must be a canonical format IP address"]);
    expect(nameIsIPAddress("2001:db8:0:0:0:0:0:1", false)).toEqual(["must be a canonical format IP address"]);
  });
});
