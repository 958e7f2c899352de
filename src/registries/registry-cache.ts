import type { RegistryAnswer, RegistryName } from './business-registry';

type Found = Extract<RegistryAnswer, { kind: 'found' }>;

/** How long a positive answer is reused: registry data changes slowly, but a dissolution should show within hours. */
export const REGISTRY_CACHE_TTL_MS = 6 * 3600 * 1000;

/**
 * Positive answers only (a not-found or an error is asked again next time), per process, bounded.
 * The records are public registry data, the same for every tenant; the evidence stored with a session
 * says when it was retrieved (`retrieved_at`), cached or not.
 */
export class RegistryCache {
  private readonly entries = new Map<string, { at: number; answer: Found }>();
  constructor(
    private readonly ttlMs = REGISTRY_CACHE_TTL_MS,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(registry: RegistryName, identifier: string): Found | null {
    const key = `${registry}:${identifier}`;
    const e = this.entries.get(key);
    if (!e) return null;
    if (this.now() - e.at > this.ttlMs) {
      this.entries.delete(key);
      return null;
    }
    return e.answer;
  }

  put(registry: RegistryName, identifier: string, answer: RegistryAnswer): void {
    if (answer.kind !== 'found') return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(`${registry}:${identifier}`, { at: this.now(), answer });
  }
}
