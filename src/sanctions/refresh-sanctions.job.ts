import type { Logger } from '../logger';
import { SanctionsLoadError } from './sanctions-load.error';
import type { SanctionsListService } from './sanctions-list.service';
import { LIST_IDS, type ListId } from './sanctions.model';

export const REFRESH_SANCTIONS_JOB = 'refresh-sanctions';

/**
 * `lists` narrows a run (CLI `sanctions refresh --list un`); absent means every configured list.
 * `urls` are the addresses of the environment that enqueued the run (the CLI's SANCTIONS_URL_*),
 * so the run fetches the same sources whichever instance's worker takes it; the scheduled run
 * carries none and uses the worker's own configuration.
 */
export type RefreshSanctionsData = { lists?: string[]; urls?: Partial<Record<string, string>> };

export type RefreshOptions = {
  /** Official download address per list; a list without one is never fetched. */
  urls: Partial<Record<ListId, string>>;
  timeoutMs: number;
  /** Larger downloads are refused (a misconfigured URL must not exhaust memory). */
  maxBytes: number;
};

/**
 * Fetches each configured list and loads it as a new version. Every failure (network, HTTP
 * status, size, a file the loader rejects) is logged and leaves that list's previous version in
 * force; one list's failure never stops the others, and the job itself does not fail, so pg-boss
 * does not hammer an official server with retries before the next scheduled run.
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

  async run(data: RefreshSanctionsData = {}): Promise<void> {
    const urls = data.urls && Object.keys(data.urls).length ? data.urls : this.opts.urls;
    const configured = LIST_IDS.filter((l) => urls[l]);
    const wanted = data.lists?.length ? configured.filter((l) => data.lists!.includes(l)) : configured;
    if (!wanted.length) this.logger.info({ lists: data.lists ?? 'all' }, 'sanctions refresh: no download URL configured for these lists');
    for (const list of wanted) await this.refreshOne(list, urls[list]!);
  }

  private async refreshOne(list: ListId, url: string): Promise<void> {
    const fileName = decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? `${list}-download`);
    try {
      const body = await this.download(url);
      const outcome = await this.lists.load(list, 'auto', fileName, body);
      this.logger.info(
        { list, url, version: outcome.version, previous_version: outcome.previous_version, new_version: outcome.new_version, entries: outcome.entries, warnings: outcome.warnings.length },
        outcome.version === outcome.previous_version ? 'sanctions refresh: list unchanged' : 'sanctions refresh: new list version in force',
      );
    } catch (err) {
      const reason = err instanceof SanctionsLoadError ? err.message : err instanceof Error ? err.message : String(err);
      this.logger.warn({ list, url, reason }, 'sanctions refresh failed; the previous version stays in force');
    }
  }

  private async download(url: string): Promise<Buffer> {
    const res = await fetch(url, { signal: AbortSignal.timeout(this.opts.timeoutMs), redirect: 'follow' });
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}`);
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > this.opts.maxBytes) throw new Error(`download of ${declared} bytes exceeds the ${this.opts.maxBytes}-byte limit`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body ?? []) {
      size += (chunk as Uint8Array).byteLength;
      if (size > this.opts.maxBytes) throw new Error(`download exceeds the ${this.opts.maxBytes}-byte limit`);
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    return Buffer.concat(chunks);
  }
}
