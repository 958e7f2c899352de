import type { Api } from './api';
import { unwrap } from './api';
import type { CreatedWebhookEndpoint, CreateWebhookRequest, ReplayRequest, WebhookEndpoint } from './types';
import { constructEvent, verifySignature } from './webhook-signature';

/** Webhook endpoints (scope `webhooks:manage`) and the receiver-side signature check. */
export class Webhooks {
  constructor(private readonly api: Api) {}

  /** Registers an endpoint; keep `signing_secret`, which no later call returns. */
  create(body: CreateWebhookRequest): Promise<CreatedWebhookEndpoint> {
    return unwrap(this.api.POST('/v1/verify/webhooks', { body }));
  }

  /** The key's endpoints, newest first, without their secrets. */
  async list(): Promise<WebhookEndpoint[]> {
    return (await unwrap(this.api.GET('/v1/developer/webhooks'))).data;
  }

  /** Deletes an endpoint: nothing more is sent to it. */
  async delete(endpointId: string): Promise<void> {
    await unwrap(this.api.DELETE('/v1/developer/webhooks/{id}', { params: { path: { id: endpointId } } }));
  }

  /** Sends events again to one endpoint, by id or by a since/until window; each is signed afresh. */
  replay(endpointId: string, body: ReplayRequest): Promise<{ queued: number }> {
    return unwrap(this.api.POST('/v1/developer/webhooks/{id}/replay', { params: { path: { id: endpointId } }, body }));
  }

  /** See verifySignature in webhook-signature.ts. */
  readonly verifySignature = verifySignature;
  /** See constructEvent in webhook-signature.ts. */
  readonly constructEvent = constructEvent;
}
