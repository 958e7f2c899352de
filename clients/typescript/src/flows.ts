import type { Api } from './api';
import { unwrap } from './api';
import type { Flow, FlowPatch } from './types';

/**
 * The tenant's flow templates (scope `flows:manage`; docs/api-behaviour.md, "Flows"): the same
 * flows, and the same rules, as the console's Flows section. Flows belong to the tenant in both modes.
 */
export class Flows {
  constructor(private readonly api: Api) {}

  /** Every flow of the tenant, the default first. */
  async list(): Promise<Flow[]> {
    return (await unwrap(this.api.GET('/v1/developer/flows'))).data;
  }

  /** One flow; `default` names the default flow. Another tenant's flow is `not_found` (404). */
  get(flowId: string): Promise<Flow> {
    return unwrap(this.api.GET('/v1/developer/flows/{id}', { params: { path: { id: flowId } } }));
  }

  /** A new flow from the default flow's branding; a bad value is `invalid_request` (400) naming the field. */
  create(body: FlowPatch & { name: string }): Promise<Flow> {
    return unwrap(this.api.POST('/v1/developer/flows', { body }));
  }

  /** A partial update (name, max_tier, branding, allowed_origins); null removes `logo_url` or `redirect_url`. */
  update(flowId: string, patch: FlowPatch): Promise<Flow> {
    return unwrap(this.api.PATCH('/v1/developer/flows/{id}', { params: { path: { id: flowId } }, body: patch }));
  }
}
