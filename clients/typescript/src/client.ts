import createClient from 'openapi-fetch';
import type { Api } from './api';
import { BulkImports } from './bulk-imports';
import { DataRights } from './data-rights';
import { Flows } from './flows';
import type { paths } from './generated/openapi';
import { Retention } from './retention';
import { DEFAULT_RETRY, retryingFetch, type RetryOptions } from './retrying-fetch';
import { Sessions } from './sessions';
import { Webhooks } from './webhooks';

export type IdvClientOptions = Partial<RetryOptions> & {
  /** A secret key, `sk_test_...` or `sk_live_...`: its mode decides which sessions the client sees. */
  apiKey: string;
  /** The service's origin, e.g. `https://verify.example.com` (no `/v1`). */
  baseUrl: string;
  /** The fetch to send with. @default globalThis.fetch */
  fetch?: (request: Request) => Promise<Response>;
};

/** A tenant backend's client for the /v1 REST API. */
export class IdvClient {
  readonly sessions: Sessions;
  readonly webhooks: Webhooks;
  readonly retention: Retention;
  readonly flows: Flows;
  readonly dataRights: DataRights;
  readonly bulkImports: BulkImports;
  /** The typed openapi-fetch client underneath, for operations without a helper (same auth and retries). */
  readonly api: Api;

  constructor(options: IdvClientOptions) {
    const { apiKey, baseUrl, fetch: baseFetch = (r: Request) => globalThis.fetch(r), ...retry } = options;
    if (!apiKey) throw new TypeError('IdvClient: apiKey is required');
    const defined = Object.fromEntries(Object.entries(retry).filter(([, v]) => v !== undefined));
    const retryOptions: RetryOptions = { ...DEFAULT_RETRY, ...defined };
    this.api = createClient<paths>({
      baseUrl: baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${apiKey}` },
      fetch: retryingFetch(baseFetch, retryOptions),
    });
    this.sessions = new Sessions(this.api);
    this.webhooks = new Webhooks(this.api);
    this.retention = new Retention(this.api);
    this.flows = new Flows(this.api);
    this.dataRights = new DataRights(this.api);
    this.bulkImports = new BulkImports(this.api, retryOptions.sleep);
  }
}
