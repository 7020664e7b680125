import { Agent } from "undici";
import { describe, expect, it } from "vitest";
import { AgentPool } from "./agent-pool.js";

describe("AgentPool", () => {
  it("keeps one agent per TLS identity and replaces an auth provider's rotated certificate", async () => {
    // Agents build their TLS context on connect, so placeholder PEM text is enough to tell identities apart.
    const pool = new AgentPool({ server: "https://x" }, undefined);
    const plain = pool.dispatcherFor(undefined, undefined);
    expect(pool.dispatcherFor(undefined, undefined)).toBe(plain);
    const first = pool.dispatcherFor("CERT-A", "KEY-A");
    expect(first).not.toBe(plain);
    expect(pool.dispatcherFor("CERT-A", "KEY-A")).toBe(first);
    const rotated = pool.dispatcherFor("CERT-B", "KEY-B");
    expect(rotated).not.toBe(first);
    expect((first as Agent).closed).toBe(true); // the older certificate's pool is closed
    expect(pool.dispatcherFor(undefined, undefined)).toBe(plain); // the config's own identity stays
    await pool.close();
    expect((plain as Agent).closed).toBe(true);
    expect(() => pool.dispatcherFor(undefined, undefined)).toThrow(/KubeClient is closed/);
    await pool.close(); // idempotent
  });

  it("uses a caller's dispatcher as is and never closes it", async () => {
    const mine = new Agent();
    const pool = new AgentPool({ server: "https://x" }, mine);
    expect(pool.dispatcherFor("c", "k")).toBe(mine);
    await pool.close();
    expect(mine.closed).toBe(false);
    expect(pool.dispatcherFor(undefined, undefined)).toBe(mine);
    await mine.close();
  });
});
