import { DsrReference, SocialCollection, SocialDataRights, SocialRecord } from './social-upstream';

/** A longer line is refused: one record must never be able to take the export's memory. */
export const MAX_LINE_BYTES = 1024 * 1024;

export class SocialUpstreamError extends Error {
  override name = 'SocialUpstreamError';
}

export type SocialUpstreamOptions = {
  baseUrl: string;
  token?: string;
  timeoutMs: number;
  fetch?: typeof fetch;
  /** Mints the Service-Actor header (docs/decisions.md D18) for a call about this user, in this data-rights request. */
  serviceActor?: (userId: string, dsrId: string) => Promise<string>;
};

/**
 * HTTP adapter of the social upstream's data-rights contract. Reads are consumed as the bytes
 * arrive, one NDJSON line at a time, at the pace of whoever iterates them (the export's zip
 * writer), so a user with millions of posts costs no more memory than one with ten.
 * Any answer but 2xx (or 404 for a user the upstream does not know) throws; the durable job that
 * called retries later.
 */
export class HttpSocialUpstream implements SocialDataRights {
  readonly configured = true;
  private readonly fetch: typeof fetch;

  constructor(private readonly opts: SocialUpstreamOptions) {
    this.fetch = opts.fetch ?? fetch;
  }

  async *read(userId: string, collection: SocialCollection): AsyncIterable<SocialRecord> {
    const res = await this.call('GET', `${this.userPath(userId)}/${collection}`, undefined, 'application/x-ndjson', await this.actorHeader(userId, `export:${collection}`));
    if (res.status === 404) return;
    if (!res.body) return;
    yield* parseNdjson(res.body, `${collection} of the social upstream`);
  }

  async erase(userId: string, ref: DsrReference): Promise<void> {
    const res = await this.call('POST', `${this.userPath(userId)}/erasure`, { dsr_id: ref.dsrId }, 'application/json', await this.actorHeader(userId, ref.dsrId));
    await res.body?.cancel();
  }

  async object(userId: string, processing: string, ref: DsrReference): Promise<void> {
    const res = await this.call('POST', `${this.userPath(userId)}/objections`, { dsr_id: ref.dsrId, processing }, 'application/json', await this.actorHeader(userId, ref.dsrId));
    await res.body?.cancel();
  }

  private userPath(userId: string): string {
    return `${this.opts.baseUrl}/data-rights/v1/users/${encodeURIComponent(userId)}`;
  }

  private async actorHeader(userId: string, requestId: string): Promise<string | undefined> {
    return this.opts.serviceActor?.(userId, requestId);
  }

  private async call(method: 'GET' | 'POST', url: string, body: object | undefined, accept = 'application/json', serviceActor?: string): Promise<Response> {
    const headers: Record<string, string> = { accept };
    if (serviceActor) headers['service-actor'] = serviceActor;
    if (body) headers['content-type'] = 'application/json';
    if (this.opts.token) headers.authorization = `Bearer ${this.opts.token}`;
    const controller = new AbortController();
    // The timeout covers the start of the answer; a long stream that keeps flowing is fine.
    const timer = setTimeout(() => controller.abort(new SocialUpstreamError(`${method} ${url} did not answer within ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs);
    let res: Response;
    try {
      res = await this.fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined, signal: controller.signal, redirect: 'error' });
    } catch (err) {
      throw new SocialUpstreamError(`${method} ${new URL(url).pathname} failed: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
    if (res.ok || (res.status === 404 && method === 'GET')) return res;
    await res.body?.cancel();
    throw new SocialUpstreamError(`${method} ${new URL(url).pathname} answered ${res.status}`);
  }
}

/** Splits a byte stream into JSON objects, one per non-empty line. */
export async function* parseNdjson(body: AsyncIterable<Uint8Array>, what: string): AsyncIterable<SocialRecord> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending = '';
  let lineNo = 0;
  const parse = (line: string): SocialRecord | null => {
    lineNo++;
    if (line.trim() === '') return null;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new SocialUpstreamError(`line ${lineNo} of the ${what} is not JSON`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SocialUpstreamError(`line ${lineNo} of the ${what} is not a JSON object`);
    return value as SocialRecord;
  };
  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const record = parse(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      if (record) yield record;
    }
    if (pending.length > MAX_LINE_BYTES) throw new SocialUpstreamError(`a line of the ${what} is longer than ${MAX_LINE_BYTES} bytes`);
  }
  pending += decoder.decode();
  const last = parse(pending);
  if (last) yield last;
}
