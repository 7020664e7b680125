import type { Dispatcher } from "undici";
import type { ClientConfig, PemData } from "./client-config.js";
import { newAgent, tlsMaterialFor } from "./transport.js";

function pemText(p: PemData): string {
  return typeof p === "string" ? p : Buffer.from(p).toString("utf8");
}

/**
 * The connection pools of one client, one undici `Agent` per TLS identity (client-go `transport/cache.go`'s
 * `tlsTransportCache`, per client instead of per process): the config's own identity, plus the latest client
 * certificate an auth provider returned. When the provider rotates its certificate, the pools of older
 * certificates are closed once idle. A dispatcher given by the caller is used as is and never closed.
 */
export class AgentPool {
  private readonly agents = new Map<string, Dispatcher>();
  private closed = false;

  constructor(
    private readonly config: ClientConfig,
    private readonly custom: Dispatcher | undefined,
  ) {}

  /** The dispatcher for an attempt presenting `cert`/`key` (undefined: the config's identity). Throws once closed. */
  dispatcherFor(cert: PemData | undefined, key: PemData | undefined): Dispatcher {
    if (this.custom !== undefined) return this.custom;
    if (this.closed) throw new Error("KubeClient is closed");
    const id = cert === undefined ? "" : `${pemText(cert)}\u0000${key === undefined ? "" : pemText(key)}`;
    let agent = this.agents.get(id);
    if (agent === undefined) {
      if (id !== "") {
        for (const [k, a] of this.agents) {
          if (k !== "") {
            this.agents.delete(k);
            void a.close().catch(() => undefined);
          }
        }
      }
      agent = newAgent(tlsMaterialFor(this.config, cert, key), this.config.headersTimeoutMs);
      this.agents.set(id, agent);
    }
    return agent;
  }

  /** Closes every pool this object created. Idempotent; later requests fail with "KubeClient is closed". */
  async close(): Promise<void> {
    this.closed = true;
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
  }
}
