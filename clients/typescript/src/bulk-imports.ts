import type { Api } from './api';
import { unwrap } from './api';
import { errorFromResponse } from './errors';
import type { BulkImport, BulkImportRecord, BulkImportResult } from './types';

export type WaitOptions = {
  /** Between two reads of the job. @default 1000 */
  intervalMs?: number;
  /** Give up (throw) after this long. @default 120000 */
  timeoutMs?: number;
};

/** Bulk import (scope `sessions:write`; docs/decisions.md D17): up to 10,000 sessions per upload, created by a durable job. */
export class BulkImports {
  constructor(
    private readonly api: Api,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  /** Starts an import of these records (create-session bodies, either shape, plus an optional `email`); a record's line is its position, from 1. */
  create(records: BulkImportRecord[]): Promise<BulkImport> {
    return unwrap(this.api.POST('/v1/admin/bulk-import', { body: { records } }));
  }

  /** Starts an import from NDJSON text, one record per line, sent as it is (line numbers are the text's). */
  createFromNdjson(ndjson: string): Promise<BulkImport> {
    return unwrap(
      this.api.POST('/v1/admin/bulk-import', {
        body: ndjson,
        bodySerializer: (body) => (typeof body === 'string' ? body : JSON.stringify(body)),
        headers: { 'content-type': 'application/x-ndjson' },
      }),
    );
  }

  /** The job's progress: `status`, and how many records were `created`, `duplicates`, `rejected`. */
  get(id: string): Promise<BulkImport> {
    return unwrap(this.api.GET('/v1/admin/bulk-import/{id}', { params: { path: { id } } }));
  }

  /** Reads the job until it is `completed` (or `timeoutMs` runs out, which throws). */
  async waitUntilDone(id: string, opts: WaitOptions = {}): Promise<BulkImport> {
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    for (;;) {
      const job = await this.get(id);
      if (job.status === 'completed') return job;
      if (Date.now() > deadline) throw new Error(`bulk import ${id} is still ${job.status} after ${opts.timeoutMs ?? 120_000} ms`);
      await this.sleep(opts.intervalMs ?? 1_000);
    }
  }

  /** One result per record, in line order, read from the NDJSON stream as it arrives (never held whole). */
  async *results(id: string): AsyncGenerator<BulkImportResult> {
    const { data, error, response } = await this.api.GET('/v1/admin/bulk-import/{id}/results', { params: { path: { id } }, parseAs: 'stream' });
    if (!response.ok || !data) throw errorFromResponse(response, error);
    let pending = '';
    for await (const chunk of data.pipeThrough(new TextDecoderStream())) {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (line) yield JSON.parse(line) as BulkImportResult;
      }
    }
    if (pending.trim()) yield JSON.parse(pending) as BulkImportResult;
  }
}
