import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { WINDOW_SECONDS } from './buckets';

const WINDOW_MS = WINDOW_SECONDS * 1000;

/** Milliseconds since the epoch; injected so tests can walk across window boundaries without sleeping. */
export type Clock = () => number;

/** The state of one counter after a request was (or was not) admitted. */
export type WindowState = {
  allowed: boolean;
  limit: number;
  /** The sliding estimate including this request when it was admitted. */
  used: number;
  remaining: number;
  /** Whole seconds until one more request would pass; 0 while some remain. */
  resetSeconds: number;
};

/**
 * A sliding 60 s window as a weighted two-window counter (Cloudflare's approach) over a
 * rate-limiter-flexible store, which itself only has fixed windows. Counts live under
 * `${id}:${floor(now / 60 s)}` with a 120 s TTL; the estimate is
 * `previous * (1 - elapsed / 60 s) + current`.
 *
 * Admission is decided after an atomic increment of the current window and undone (`reward`)
 * when refused, so concurrent requests on several instances each see a distinct count and the
 * admitted total never passes the limit; refused requests do not use up the window.
 */
export class SlidingWindow {
  constructor(
    private readonly store: RateLimiterAbstract,
    private readonly clock: Clock = Date.now,
  ) {}

  async consume(id: string, limit: number): Promise<WindowState> {
    const { window, elapsedMs } = this.position();
    const currentKey = `${id}:${window}`;
    const [prevRes, curRes] = await Promise.all([this.store.get(`${id}:${window - 1}`), this.store.consume(currentKey, 1).catch(rethrowUnlessRes)]);
    const prev = prevRes?.consumedPoints ?? 0;
    let cur = curRes.consumedPoints;
    const allowed = estimate(prev, cur, elapsedMs) <= limit + 1e-9;
    if (!allowed) {
      await this.store.reward(currentKey, 1);
      cur -= 1;
    }
    return stateOf(allowed, prev, cur, elapsedMs, limit);
  }

  /** The state without charging: would one more request pass now? */
  async peek(id: string, limit: number): Promise<WindowState> {
    const { window, elapsedMs } = this.position();
    const [prevRes, curRes] = await Promise.all([this.store.get(`${id}:${window - 1}`), this.store.get(`${id}:${window}`)]);
    const prev = prevRes?.consumedPoints ?? 0;
    const cur = curRes?.consumedPoints ?? 0;
    return stateOf(estimate(prev, cur + 1, elapsedMs) <= limit + 1e-9, prev, cur, elapsedMs, limit);
  }

  /** Gives back a unit charged in this window (a multi-bucket GraphQL operation refused by another bucket). */
  async refund(id: string): Promise<void> {
    await this.store.reward(`${id}:${this.position().window}`, 1);
  }

  private position(): { window: number; elapsedMs: number } {
    const now = this.clock();
    const window = Math.floor(now / WINDOW_MS);
    return { window, elapsedMs: now - window * WINDOW_MS };
  }
}

/** Points large enough that the store never refuses by itself: admission is decided here. */
export const STORE_POINTS = 1_000_000_000;

export function estimate(prev: number, cur: number, elapsedMs: number): number {
  return prev * (1 - elapsedMs / WINDOW_MS) + cur;
}

function stateOf(allowed: boolean, prev: number, cur: number, elapsedMs: number, limit: number): WindowState {
  const used = estimate(prev, cur, elapsedMs);
  const remaining = Math.max(0, Math.floor(limit - used + 1e-9));
  const resetSeconds = remaining > 0 ? 0 : Math.max(1, Math.ceil(msUntilNext(prev, cur, elapsedMs, limit) / 1000));
  return { allowed, limit, used: Math.max(0, Math.round(used)), remaining, resetSeconds };
}

/** How long until the window has slid far enough for one more request. */
export function msUntilNext(prev: number, cur: number, elapsedMs: number, limit: number): number {
  if (estimate(prev, cur + 1, elapsedMs) <= limit + 1e-9) return 0;
  const roomForPrev = limit - cur - 1;
  if (roomForPrev >= 0 && prev > 0) {
    // Within this window the previous one's weight falls linearly to 0.
    const at = WINDOW_MS * (1 - roomForPrev / prev);
    if (at <= WINDOW_MS) return Math.max(0, at - elapsedMs);
  }
  // Only the next window helps: this window's count becomes the previous one.
  const room = limit - 1;
  const atNext = cur <= room ? 0 : WINDOW_MS * (1 - room / cur);
  return WINDOW_MS - elapsedMs + atNext;
}

function rethrowUnlessRes(err: unknown): RateLimiterRes {
  // With STORE_POINTS the store never refuses, so a RateLimiterRes here still carries the count.
  if (err && typeof err === 'object' && 'consumedPoints' in err) return err as RateLimiterRes;
  throw err;
}
