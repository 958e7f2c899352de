import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { requireTenantKey } from '../src/auth/auth.service';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import type { HostedLink } from '../src/hosted-flow/hosted-link';
import { encodeCursor, SessionService } from '../src/sessions/session.service';
import { CreateSessionInput, ReviewSessionInput, SessionsArgs } from './session.inputs';
import type { EvidenceAccessService } from '../src/vault/evidence-access.service';
import { SessionExtras, toSession } from './session.mapper';
import { SessionConnection } from './session-connection.type';
import { Session } from './session.type';

/** Thin transport over SessionService: auth, arguments, mapping. */
@Resolver(() => Session)
export class SessionResolver {
  constructor(
    private readonly sessionService: SessionService,
    private readonly hostedLink: HostedLink,
    private readonly evidence?: EvidenceAccessService,
  ) {}

  /** A read's extras: evidence links, and the open session's hosted URL (D21), both for tenant keys only. */
  private readExtras(ctx: RequestContext, s: { id: string; status: string }): SessionExtras {
    return { evidence: this.evidence?.signerFor(ctx.actor), hostedUrl: this.hostedLink.forRead(ctx.actor, s) };
  }

  @Query(() => Session, { nullable: true, description: 'One session, or null when it does not exist for this credential.' })
  async session(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<Session | null> {
    if (!ctx.actor) throw new DomainError('unauthorized', 'Missing or invalid credential');
    if (ctx.actor.kind === 'tenant_key') requireTenantKey(ctx.actor, 'sessions:read');
    const s = await this.sessionService.find(ctx.actor, id);
    return s ? toSession(s, this.readExtras(ctx, s)) : null;
  }

  @Query(() => SessionConnection, { description: 'Sessions of this key\'s tenant and mode, newest first.' })
  async sessions(@Args() args: SessionsArgs, @Ctx() ctx: RequestContext): Promise<SessionConnection> {
    const actor = requireTenantKey(ctx.actor, 'sessions:read');
    const page = await this.sessionService.list(actor, args);
    const edges = page.sessions.map((s) => ({ cursor: encodeCursor(s), node: toSession(s, this.readExtras(ctx, s)) }));
    return { edges, pageInfo: { hasNextPage: page.hasNextPage, endCursor: edges.at(-1)?.cursor ?? null } };
  }

  @Mutation(() => Session, { description: 'Creates a session; the response alone carries its clientSecret (and its hostedUrl, which tenant-key reads also carry while the session is open).' })
  async createSession(@Arg('input', () => CreateSessionInput) input: CreateSessionInput, @Ctx() ctx: RequestContext): Promise<Session> {
    const actor = requireTenantKey(ctx.actor, 'sessions:write');
    const { session, clientSecret } = await this.sessionService.create(actor, input);
    return toSession(session, { hostedUrl: this.hostedLink.forCreated(session.id), clientSecret });
  }

  @Mutation(() => Session, { description: 'The manual-review override for a session in MANUAL_REVIEW (scope sessions:review).' })
  async reviewSession(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ReviewSessionInput) input: ReviewSessionInput,
    @Ctx() ctx: RequestContext,
  ): Promise<Session> {
    const actor = requireTenantKey(ctx.actor, 'sessions:review');
    const s = await this.sessionService.review(actor, id, input);
    return toSession(s, this.readExtras(ctx, s));
  }

  @Mutation(() => Session, { description: 'Cancels a session that has not reached a terminal status (it becomes WITHDRAWN).' })
  async cancelSession(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<Session> {
    const actor = requireTenantKey(ctx.actor, 'sessions:write');
    const s = await this.sessionService.cancel(actor, id);
    return toSession(s, this.readExtras(ctx, s));
  }
}
