import { DomainError } from '../errors';
import type { Logger } from '../logger';
import { SanctionsIndex } from './sanctions-index';
import type { CurrentListVersion, SanctionsListRepository } from './sanctions-list.repository';
import { type SanctionsHit, type ScreeningQuery } from './sanctions.model';
import { LIST_IDS, type ListId, type ListSnapshot } from '../../entities/list-snapshot.document';
import { validateScreeningQuery } from './screening-query';

export type ListUsed = { list: ListId; version: string };

/** One list as /healthz reports it: the version in force and how long ago it was loaded or confirmed current. */
export type ListHealth = { version: string; loaded_at: string; age_seconds: number } | null;

export type Screening = {
  hits: SanctionsHit[];
  /** Every list version the query was screened against; empty means nothing was screened. */
  lists: ListUsed[];
  threshold: number;
};

type Loaded = { signature: string; index: SanctionsIndex; lists: ListUsed[]; snapshots: Map<string, ListSnapshot> };

const EMPTY: Loaded = { signature: '', index: SanctionsIndex.build([]), lists: [], snapshots: new Map() };

/**
 * Holds this process's screening index and keeps it equal to the versions in force. A cheap
 * poll of the per-list pointers detects a load on any instance; the index is then rebuilt from
 * the snapshots in the background and swapped whole, so a screening never mixes versions and
 * requests never wait for a build. Background jobs that must use the newest lists call
 * `screenCurrent`, which catches up first.
 */
export class SanctionsScreeningService {
  private loaded: Loaded = EMPTY;
  private inFlight: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Set once the versions in force have been read successfully. */
  private checked = false;
  /** The pointers as last read (every poll: a refresh of unchanged content renews loaded_at without a rebuild). */
  private pointers: CurrentListVersion[] = [];
  private warnedEmpty = false;

  constructor(
    private readonly repo: SanctionsListRepository,
    private readonly logger: Logger,
    private readonly pollMs: number,
  ) {}

  start(): void {
    void this.refresh().catch(() => undefined);
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The versions the index currently answers with. */
  get listsInUse(): ListUsed[] {
    return this.loaded.lists;
  }

  /**
   * The lists in force right now, read from the database rather than the index (which a build may
   * still be catching up): a live check asks this before screening, so that "no list loaded" is an
   * `error` with the reason SANCTIONS_NOT_LOADED, never a pass.
   */
  async loadedLists(): Promise<ListUsed[]> {
    await this.refresh();
    return this.pointers.map((c) => ({ list: c.list, version: c.version }));
  }

  async hasLists(): Promise<boolean> {
    return (await this.loadedLists()).length > 0;
  }

  /**
   * Each list's version and age as of the last poll (at most SANCTIONS_POLL_SECONDS old), for
   * /healthz: answered from memory, so the health route never waits on the database for it.
   */
  health(now = Date.now()): Record<ListId, ListHealth> {
    const out = Object.fromEntries(LIST_IDS.map((l) => [l, null])) as Record<ListId, ListHealth>;
    for (const c of this.pointers) {
      out[c.list] = { version: c.version, loaded_at: c.loadedAt.toISOString(), age_seconds: Math.max(0, Math.floor((now - c.loadedAt.getTime()) / 1000)) };
    }
    return out;
  }

  /** Brings the index up to the versions in force; concurrent callers share one run. */
  refresh(): Promise<void> {
    this.inFlight ??= this.catchUp().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /**
   * Screens a query validated by validateScreeningQuery against the index as it is now (after
   * start-up: the first call waits for the first build rather than answer from nothing).
   */
  async screen(query: ScreeningQuery, threshold: number): Promise<Screening> {
    if (!this.checked) await this.refresh();
    const { index, lists } = this.loaded;
    return { hits: lists.length ? index.screen(query, { threshold }) : [], lists, threshold };
  }

  /** Like `screen`, after making sure the newest versions are in the index (for jobs, not requests). */
  async screenCurrent(query: ScreeningQuery, threshold: number): Promise<Screening> {
    // A catch-up already running may have read the pointers before the caller's latest load committed.
    if (this.inFlight) await this.inFlight.catch(() => undefined);
    await this.refresh();
    return await this.screen(query, threshold);
  }

  /**
   * An ad-hoc screening a tenant asked for (GraphQL `screenIdentity`): the input is checked here, and
   * with no list loaded it is refused, since "no hits" after screening against nothing would be a
   * silent pass.
   */
  async screenRequested(tenantId: string, input: unknown): Promise<Screening> {
    const v = validateScreeningQuery(input);
    if (!v.ok) throw new DomainError('invalid_request', v.error.message);
    const screening = await this.screenForTenant(tenantId, v.query);
    if (!screening.lists.length) throw new DomainError('invalid_state', 'No sanctions list is loaded: load one with `sanctions load` before screening');
    return screening;
  }

  /** Screens with the tenant's own threshold (tenants.sanctions_threshold, default 0.70). */
  async screenForTenant(tenantId: string, query: ScreeningQuery, opts: { current?: boolean } = {}): Promise<Screening> {
    const threshold = await this.repo.tenantThreshold(tenantId);
    return opts.current ? this.screenCurrent(query, threshold) : this.screen(query, threshold);
  }

  private async catchUp(): Promise<void> {
    let current: CurrentListVersion[];
    try {
      current = await this.repo.currentVersions();
    } catch (err) {
      this.logger.warn({ err }, 'sanctions: cannot read the list versions in force; keeping the index as it is');
      throw err;
    }
    this.pointers = current;
    if (!current.length && !this.warnedEmpty) {
      // Once per process: an operator must know that live T3/T4 checks cannot pass yet.
      this.warnedEmpty = true;
      this.logger.warn(
        'no sanctions list is loaded: live T3/T4 sanctions checks are `error` until one is (the refresh job downloads the configured lists; offline: npm run cli -- sanctions load --list <name> --file <path>)',
      );
    }
    const signature = current.map((c) => `${c.list}:${c.versionId}`).join(',');
    if (signature === this.loaded.signature) {
      this.checked = true;
      return;
    }
    const started = Date.now();
    const snapshots = new Map<string, ListSnapshot>();
    for (const c of current) snapshots.set(c.versionId, this.loaded.snapshots.get(c.versionId) ?? (await this.repo.snapshot(c.versionId)));
    const index = SanctionsIndex.build([...snapshots.values()]);
    this.loaded = { signature, index, lists: current.map((c) => ({ list: c.list, version: c.version })), snapshots };
    this.checked = true;
    this.logger.info({ lists: this.loaded.lists, ...index.size, ms: Date.now() - started }, 'sanctions index rebuilt');
  }
}
