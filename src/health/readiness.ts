/** One thing /readyz waits for: resolves when ready, throws (with a reason an operator can read) when not. */
export type ReadinessCheck = { name: string; check: () => Promise<void> };

export type ReadinessReport = { ready: boolean; checks: Record<string, 'ready' | string>; not_ready: string[] };

/** A probe never hangs on a dependency that does not answer: past this it counts as not ready. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * Readiness of this process for traffic (docs/operations.md, "Probes"): every check at once, each
 * bounded by CHECK_TIMEOUT_MS, and not ready at all once shutdown has begun.
 */
export class Readiness {
  private draining = false;

  constructor(private readonly checks: ReadinessCheck[]) {}

  /** Shutdown has begun: from now on /readyz answers 503 `shutting_down`, so a balancer stops sending work. */
  drain(): void {
    this.draining = true;
  }

  async report(): Promise<ReadinessReport> {
    const entries = await Promise.all(this.checks.map(async (c) => [c.name, await outcomeOf(c.check)] as const));
    if (this.draining) entries.push(['shutting_down', 'the process is shutting down']);
    const checks = Object.fromEntries(entries);
    const notReady = entries.filter(([, v]) => v !== 'ready').map(([k]) => k);
    return { ready: notReady.length === 0, checks, not_ready: notReady };
  }
}

async function outcomeOf(check: () => Promise<void>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([check(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS)))]);
    return 'ready';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}
