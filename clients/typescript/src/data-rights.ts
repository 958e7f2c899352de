import type { Api } from './api';
import { unwrap } from './api';

type InitiateBody = { user_sub: string; purpose: 'access'; callback_url: string };

/** Delegated data-subject requests (scope `dsr:manage`; docs/data-rights.md, "Delegated requests"). */
export class DataRights {
  constructor(private readonly api: Api) {}

  /**
   * Asks, for one of your users (your `sub` for them), for their data. The answer is `awaiting_confirmation`
   * with `callback_signing_secret`, shown once: the user confirms by mail, and the result is POSTed to
   * `callback_url` signed like a webhook, so `verifySignature(rawBody, header, callback_signing_secret)` checks it.
   */
  initiateDelegatedRequest(body: InitiateBody) {
    return unwrap(this.api.POST('/v1/developer/dsr/initiate', { body: { ...body, delegated_by_tenant: true } }));
  }
}
