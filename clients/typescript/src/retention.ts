import type { Api } from './api';
import { unwrap } from './api';
import type { Retention as RetentionRecord, RetentionPatch } from './types';

/** The tenant's retention policy in the key's mode (scope `retention:manage`; docs/retention-and-audit.md). */
export class Retention {
  constructor(private readonly api: Api) {}

  get(tenantId: string): Promise<RetentionRecord> {
    return unwrap(this.api.GET('/v1/developer/tenants/{tenant_id}/retention', { params: { path: { tenant_id: tenantId } } }));
  }

  /** A partial update; a value out of range is `invalid_request` (400) naming the field. */
  update(tenantId: string, patch: RetentionPatch): Promise<RetentionRecord> {
    return unwrap(this.api.PATCH('/v1/developer/tenants/{tenant_id}/retention', { params: { path: { tenant_id: tenantId } }, body: patch }));
  }
}
