/**
 * Why a part is not ready, as /readyz says it: a stable code and a short reason of our own. A check
 * throws this for the reasons it knows; any other failure is reported as the check's `failure`.
 */
export class NotReady extends Error {
  constructor(
    readonly code: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * One thing /readyz waits for: resolves when ready, throws when not. `failure` is what the probe
 * says for an error the check did not name itself (a refused connection, a driver's error): the
 * error's own text goes to the log only, as it can name hosts, socket paths or users.
 */
export type ReadinessCheck = { name: string; check: () => Promise<void>; failure: { code: string; reason: string } };

export type ReadinessReport = { ready: boolean; checks: Record<string, 'ready' | string>; reasons: Record<string, string>; not_ready: string[] };

/** A probe never hangs on a dependency that does not answer: past this it counts as not ready. */
const CHECK_TIMEOUT_MS = 2_000;

type Outcome = { code: 'ready' } | { code: string; reason: string; cause?: unknown };

/**
 * Readiness of this process for traffic (docs/operations.md, "Probes"): every check at once, each
 * bounded by CHECK_TIMEOUT_MS, and not ready at all once shutdown has begun. The answer holds a code
 * and a short reason per part, never an error's text: /readyz needs no credential. A check whose
 * outcome changes (not ready, or ready again) is logged once, with the error, for the operator.
 */
export class Readiness {
  private draining = false;
  private readonly lastCode = new Map<string, string>();

  constructor(
    private readonly checks: ReadinessCheck[],
    private readonly log: (check: string, outcome: { code: string; reason?: string; cause?: unknown }) => void = () => undefined,
  ) {}

  /** Shutdown has begun: from now on /readyz answers 503 `shutting_down`, so a balancer stops sending work. */
  drain(): void {
    this.draining = true;
  }

  async report(): Promise<ReadinessReport> {
    const entries = await Promise.all(this.checks.map(async (c) => [c.name, await outcomeOf(c)] as const));
    if (this.draining) entries.push(['shutting_down', { code: 'shutting_down', reason: 'the process is shutting down' }]);
    for (const [name, outcome] of entries) {
      const last = this.lastCode.get(name);
      if (last === outcome.code) continue;
      this.lastCode.set(name, outcome.code);
      if (last !== undefined || outcome.code !== 'ready') this.log(name, outcome);
    }
    const checks = Object.fromEntries(entries.map(([name, o]) => [name, o.code]));
    const reasons = Object.fromEntries(entries.flatMap(([name, o]) => ('reason' in o ? [[name, o.reason]] : [])));
    const notReady = entries.filter(([, o]) => o.code !== 'ready').map(([name]) => name);
    return { ready: notReady.length === 0, checks, reasons, not_ready: notReady };
  }
}

class CheckTimeout extends Error {}

async function outcomeOf(c: ReadinessCheck): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([c.check(), new Promise((_, reject) => (timer = setTimeout(() => reject(new CheckTimeout()), CHECK_TIMEOUT_MS)))]);
    return { code: 'ready' };
  } catch (err) {
    if (err instanceof NotReady) return { code: err.code, reason: err.reason };
    if (err instanceof CheckTimeout) return { code: 'timeout', reason: `no answer within ${CHECK_TIMEOUT_MS / 1000} s` };
    return { ...c.failure, cause: err };
  } finally {
    clearTimeout(timer);
  }
}
