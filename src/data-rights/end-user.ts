import type { EndUserActor } from '../auth/actor';
import type { RequestContext } from '../context';
import { DomainError } from '../errors';

/** Only the end user's own access token opens the data-rights operations (spec, Authentication rule 4): anything else is 403 `user_token_required`. */
export function endUserOf(ctx: Pick<RequestContext, 'actor'>): EndUserActor {
  if (ctx.actor?.kind !== 'end_user') throw new DomainError('user_token_required', "This needs the end user's own access token; tenant API keys are refused here");
  return ctx.actor;
}
