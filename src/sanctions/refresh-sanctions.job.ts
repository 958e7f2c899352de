import { readCappedBody } from '../net/capped-body';
import { publicOriginOf, requestOf } from '../net/configured-url';
import type { JobQueue } from '../jobs/job-queue';
import type { Logger } from '../logger';
import { SanctionsLoadError } from './sanctions-load.error';
import type { SanctionsListService } from './sanctions-list.service';
import { LIST_IDS, type ListId } from '../../entities/list-snapshot.document';

export const REFRESH_SANCTIONS_JOB = 'refresh-sanctions';

/** A list whose version in force was loaded (or confirmed current) longer ago than this is fetched at start. */
export const MAX_LIST_AGE_MS = 24 * 3600 * 1000;

/** Tries of a catch-up before it gives up until the next daily run: with the doubling waits, about 8 h. */
const CATCH_UP_RETRY_LIMIT = 12;
const CATCH_UP_MAX_RETRY_DELAY_SECONDS = 3600;

/**
 * `lists` narrows a run (CLI `sanctions refresh --list un`); absent means every configured list.
 * `urls` are the addresses of the environment that enqueued the run (the CLI's SANCTIONS_URL_*),
 * so the run fetches the same sources whichever instance's worker takes it; the scheduled run
 * carries none and uses the worker's own configuration.
 * `loadedBefore` (ISO instant) makes the run a catch-up: only lists with no version in force, or
 * one loaded before that instant, are fetched, and a failed download fails the job so that pg-boss
 * tries again with backoff. A retry therefore fetches only what is still missing.
 */
export type RefreshSanctionsData = { lists?: string[]; urls?: Partial<Record<string, string>>; loadedBefore?: string };

export type RefreshOptions = {
  /** Download address per list; a list without one is never fetched. */
  urls: Partial<Record<ListId, string>>;
  timeoutMs: number;
  /** Larger downloads are refused (a misconfigured URL must not exhaust memory). */
  maxBytes: number;
  /** First wait before a failed catch-up is tried again (pg-boss doubles it on each try). */
  retrySeconds: number;
};

export type RefreshOutcome = { fetched: ListId[]; failed: ListId[] };

/**
 * Fetches each configured list and loads it as a new version. Every failure (network, HTTP
 * status, size, a file the loader rejects) is logged and leaves that list's previous version in
 * force; one list's failure never stops the others. A plain run (the daily schedule, the CLI)
 * does not fail: its failed lists go to a catch-up job, which pg-boss retries with backoff, so
 * an official server is never hammered back to back.
 */
export class RefreshSanctionsJob {
  constructor(
    private readonly lists: SanctionsListService,
    private readonly logger: Logger,
    private readonly opts: RefreshOptions,
  ) {}

  get configuredLists(): ListId[] {
    return LIST_IDS.filter((l) => this.opts.urls[l]);
  }

  /** The job's handler: a run, then the follow-up its failures need. */
  async handle(queue: Pick<JobQueue, 'send'>, data: RefreshSanctionsData = {}): Promise<void> {
    const startedAt = new Date();
    const { failed } = await this.run(data);
    if (!failed.length) return;
    if (data.loadedBefore) throw new Error(`sanctions refresh failed for ${failed.join(', ')}; the job is tried again later`);
    // The first try waits as a retry would: never straight back to a server that just failed.
    const startAfter = new Date(Date.now() + this.opts.retrySeconds * 1000);
    await this.enqueueCatchUp(queue, { lists: failed, ...(data.urls ? { urls: data.urls } : {}), loadedBefore: startedAt.toISOString() }, 'sanctions-follow-up', startAfter);
  }

  /**
   * At start (server with workers, `npm run worker`): a catch-up of the configured lists that are
   * missing or older than 24 h. Every instance may ask; one job per 5 minutes is queued (and a
   * later one finds the lists fresh and fetches nothing).
   */
  async enqueueStartUpCatchUp(queue: Pick<JobQueue, 'send'>, now = new Date()): Promise<ListId[]> {
    const loadedBefore = new Date(now.getTime() - MAX_LIST_AGE_MS);
    try {
      const stale = await this.staleLists(this.configuredLists, loadedBefore);
      if (stale.length) {
        await this.enqueueCatchUp(queue, { lists: stale, loadedBefore: loadedBefore.toISOString() }, 'sanctions-start-up');
        this.logger.info({ lists: stale }, 'sanctions lists missing or older than 24 h: a download is queued');
      }
      return stale;
    } catch (err) {
      // Never a reason not to start: the daily run still comes.
      this.logger.warn({ err }, 'sanctions: could not queue the start-up download');
      return [];
    }
  }

  async run(data: RefreshSanctionsData = {}): Promise<RefreshOutcome> {
    const urls = data.urls && Object.keys(data.urls).length ? data.urls : this.opts.urls;
    const configured = LIST_IDS.filter((l) => urls[l]);
    let wanted = data.lists?.length ? configured.filter((l) => data.lists!.includes(l)) : configured;
    if (data.loadedBefore) wanted = await this.staleLists(wanted, new Date(data.loadedBefore));
    else if (!wanted.length) this.logger.info({ lists: data.lists ?? 'all' }, 'sanctions refresh: no download URL configured for these lists');
    const failed: ListId[] = [];
    for (const list of wanted) if (!(await this.refreshOne(list, urls[list]!))) failed.push(list);
    return { fetched: wanted, failed };
  }

  /** The lists among `candidates` with no version in force or one loaded before `loadedBefore`. */
  private async staleLists(candidates: ListId[], loadedBefore: Date): Promise<ListId[]> {
    if (!candidates.length) return [];
    const loadedAt = new Map((await this.lists.inForce()).map((c) => [c.list, c.loadedAt.getTime()]));
    return candidates.filter((l) => !((loadedAt.get(l) ?? 0) >= loadedBefore.getTime()));
  }

  private async enqueueCatchUp(queue: Pick<JobQueue, 'send'>, data: RefreshSanctionsData, singletonKey: string, startAfter?: Date): Promise<void> {
    await queue.send<RefreshSanctionsData>(REFRESH_SANCTIONS_JOB, data, {
      ...(startAfter ? { startAfter } : {}),
      singletonKey,
      singletonSeconds: 300,
      retry: { limit: CATCH_UP_RETRY_LIMIT, delaySeconds: this.opts.retrySeconds, backoff: true, maxDelaySeconds: CATCH_UP_MAX_RETRY_DELAY_SECONDS },
    });
  }

  /** True when the list was downloaded and loaded (a new version, or the same content confirmed). */
  private async refreshOne(list: ListId, url: string): Promise<boolean> {
    const fileName = decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? `${list}-download`);
    try {
      const body = await this.download(url);
      const outcome = await this.lists.load(list, 'auto', fileName, body);
      this.logger.info(
        { list, source: publicOriginOf(url), version: outcome.version, previous_version: outcome.previous_version, new_version: outcome.new_version, entries: outcome.entries, warnings: outcome.warnings.length },
        outcome.version === outcome.previous_version ? 'sanctions refresh: list unchanged' : 'sanctions refresh: new list version in force',
      );
      return true;
    } catch (err) {
      const reason = err instanceof SanctionsLoadError ? err.message : err instanceof Error ? describeFetchError(err) : String(err);
      this.logger.warn({ list, source: publicOriginOf(url), reason }, 'sanctions refresh failed; the previous version stays in force');
      return false;
    }
  }

  private async download(url: string): Promise<Buffer> {
    const request = requestOf(url);
    const res = await fetch(request.url, { headers: request.headers, signal: AbortSignal.timeout(this.opts.timeoutMs), redirect: 'follow' });
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${publicOriginOf(url)}`);
    return readCappedBody(res, this.opts.maxBytes);
  }
}

/**
 * fetch's own message is "fetch failed"; the cause says what failed (ENOTFOUND, ECONNREFUSED). Never
 * another error's message: fetch's own can quote the address, credentials and query included.
 */
function describeFetchError(err: Error): string {
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'no answer in time';
  if (err.message.startsWith('HTTP ')) return err.message; // ours, from download()
  // The cause is the network's (ECONNREFUSED, getaddrinfo ENOTFOUND <host>): it names a host at most.
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  const why = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : null;
  return why ? `${err.message}: ${why}` : `${err.name}: the download failed`;
}
