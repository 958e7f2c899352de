import type { RequestContext } from '../context';
import { requireTenantKey } from '../auth/auth.service';
import { DomainError } from '../errors';
import type { DsrJobFilter } from './dsr-job.service';

export const DSR_SCOPE = 'dsr:manage';

/**
 * Who may list which DSR jobs, written once for every transport: the operator's internal tools
 * (the service-admin-key credential) see every job; a tenant key with `dsr:manage` sees only the
 * requests it initiated, in its own mode. A user sees their own through /v1/me/requests.
 */
export function dsrJobScopeFor(ctx: RequestContext, wanted: Omit<DsrJobFilter, 'tenant'>): DsrJobFilter {
  if (ctx.operator) return wanted;
  if (wanted.userId) throw new DomainError('insufficient_scope', 'Only the operator credential may list a user\'s data requests');
  const actor = requireTenantKey(ctx.actor, DSR_SCOPE);
  return { ...wanted, tenant: { tenantId: actor.tenantId, livemode: actor.livemode } };
}
