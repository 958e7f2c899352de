import type { RegistryAnswer, RegistryName } from './business-registry';

type Kept = Extract<RegistryAnswer, { kind: 'found' } | { kind: 'not_found' }>;

/** How long a positive answer is reused: registry data changes slowly, but a dissolution should show within hours. */
export const REGISTRY_CACHE_TTL_MS = 6 * 3600 * 1000;
/**
 * A not-found is kept only long enough for the job's retries (about 4 minutes): a run that waited for
 * another registry's budget does not spend this registry's budget asking again.
 */
export const REGISTRY_NOT_FOUND_TTL_MS = 5 * 60 * 1000;

/** The cache's memory, counted as the raw bodies it keeps (an SEC submissions file reaches ~1 MiB; most are a few KiB). */
export const REGISTRY_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Answers per registry and identifier, per process, bounded by the bytes of the raw bodies kept (the
 * oldest go first): a found record for 6 hours, a not-found for 5 minutes; an error or a 429 is never kept. The records are public registry data, the same for
 * every tenant; the evidence stored with a session says whether it came from the cache.
 */
export class RegistryCache {
  private readonly entries = new Map<string, { at: number; answer: Kept }>();
  private bytes = 0;
  constructor(
    private readonly ttlMs = REGISTRY_CACHE_TTL_MS,
    private readonly maxBytes = REGISTRY_CACHE_MAX_BYTES,
    private readonly now: () => number = Date.now,
    private readonly notFoundTtlMs = REGISTRY_NOT_FOUND_TTL_MS,
  ) {}

  get(registry: RegistryName, identifier: string): Kept | null {
    const key = `${registry}:${identifier}`;
    const e = this.entries.get(key);
    if (!e) return null;
    if (this.now() - e.at > (e.answer.kind === 'found' ? this.ttlMs : this.notFoundTtlMs)) {
      this.remove(key);
      return null;
    }
    return e.answer;
  }

  put(registry: RegistryName, identifier: string, answer: RegistryAnswer): void {
    if (answer.kind !== 'found' && answer.kind !== 'not_found') return;
    const key = `${registry}:${identifier}`;
    this.remove(key);
    if (answer.raw.length > this.maxBytes) return;
    // A Map iterates in insertion order: the first keys are the oldest answers.
    for (const oldest of this.entries.keys()) {
      if (this.bytes + answer.raw.length <= this.maxBytes) break;
      this.remove(oldest);
    }
    this.entries.set(key, { at: this.now(), answer });
    this.bytes += answer.raw.length;
  }

  private remove(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.answer.raw.length;
  }
}
