/** Whose upload a slot is taken for: slots are shared fairly between tenants and between a tenant's sessions. */
export type UploadOwner = { tenantId: string; sessionId: string };

export type UploadGateLimits = { slots: number; perTenant: number; perSession: number };

type Waiter = { owner: UploadOwner; start: () => void };

/**
 * At most `slots` upload bodies are read at once. An upload's ciphertext is held in memory until
 * its one transaction (docs/hosted-flow.md "The hosted API"), so without a bound every body in
 * flight would be in memory together: 200 parallel 5 MiB uploads took the server's RSS up by
 * 1.25 GB (docs/benchmarks.md). Waiting uploads are not read, so TCP holds their bytes back at the
 * client; memory stays near slots x the largest upload.
 *
 * One tenant reads at most `perTenant` bodies at once and one session `perSession`, so a tenant (or
 * one page) with many slow uploads leaves slots for everyone else: sixteen slow uploads of one tenant
 * once held every slot and stalled all tenants. A waiting upload starts as soon as a slot it may take
 * is free, oldest first; with the minimum body rate (src/vault/minimum-rate.ts) no slot is held long.
 */
export class UploadGate {
  private active = 0;
  private readonly byTenant = new Map<string, number>();
  private readonly bySession = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  constructor(private readonly limits: UploadGateLimits) {}

  async run<T>(owner: UploadOwner, work: () => Promise<T>): Promise<T> {
    if (this.mayStart(owner)) this.take(owner);
    else await new Promise<void>((start) => this.waiting.push({ owner, start }));
    try {
      return await work();
    } finally {
      this.release(owner);
    }
  }

  private mayStart(o: UploadOwner): boolean {
    return this.active < this.limits.slots && (this.byTenant.get(o.tenantId) ?? 0) < this.limits.perTenant && (this.bySession.get(o.sessionId) ?? 0) < this.limits.perSession;
  }

  private take(o: UploadOwner): void {
    this.active++;
    this.byTenant.set(o.tenantId, (this.byTenant.get(o.tenantId) ?? 0) + 1);
    this.bySession.set(o.sessionId, (this.bySession.get(o.sessionId) ?? 0) + 1);
  }

  private release(o: UploadOwner): void {
    this.active--;
    const t = (this.byTenant.get(o.tenantId) ?? 1) - 1;
    if (t) this.byTenant.set(o.tenantId, t);
    else this.byTenant.delete(o.tenantId);
    const s = (this.bySession.get(o.sessionId) ?? 1) - 1;
    if (s) this.bySession.set(o.sessionId, s);
    else this.bySession.delete(o.sessionId);
    // Start every waiting upload that may now run, oldest first.
    for (let i = 0; i < this.waiting.length; ) {
      const w = this.waiting[i];
      if (!this.mayStart(w.owner)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.take(w.owner);
      w.start();
    }
  }
}
