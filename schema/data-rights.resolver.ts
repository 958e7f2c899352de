import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../src/context';
import type { DataRightsServices } from '../src/data-rights/data-rights.services';
import type { DsrJob as DomainDsrJob } from '../src/data-rights/dsr-job.service';
import type { Profile } from '../src/users/profile';
import type { ReviewCase as DomainReviewCase } from '../src/data-rights/review-case';
import { DomainError } from '../src/errors';
import type { EndUserActor } from '../src/auth/actor';
import { profileShownTo } from '../src/users/account-disclosure';
import { tenantSliceOf, type UserCapability, type UserTokenPolicy } from '../src/auth/user-token.policy';
import { MyProfile, ProfileChange, ReviewCase, UpdateMyProfileInput, VerificationReviewRequest } from './data-rights.type';
import { toDsrJobType } from './dsr-job.mapper';
import { DsrJob } from './dsr-job.type';

const job = (j: DomainDsrJob): DsrJob => toDsrJobType(j, { showUser: false });
const reviewCase = (c: DomainReviewCase): ReviewCase => ({ ...c, verificationId: c.sessionId });
/** The profile as the token is shown it (src/users/account-disclosure.ts): what it may not see is null. */
const myProfile = (actor: EndUserActor, full: Profile): MyProfile => {
  const p = profileShownTo(actor, full);
  return {
    sub: p.sub,
    id: p.id ?? null,
    displayName: p.display_name ?? null,
    handle: p.handle ?? null,
    publicLinks: p.public_links ?? null,
    bio: p.bio ?? null,
    legalName: p.legal_name ?? null,
    dateOfBirth: p.date_of_birth ?? null,
    nationality: p.nationality ?? null,
    state: p.state,
    objections: p.objections?.map((o) => ({ processing: o.processing, objectedAt: o.objected_at })) ?? null,
    pendingChanges: p.pending_changes?.map((c) => ({ id: c.id, field: c.field, value: c.value, requestedAt: c.requested_at, dsrJobId: c.dsr_job_id })) ?? null,
  };
};

/** Internal tools (the review console) use the operator credential; no tenant key or user token reaches these. */
function requireInternalTools(ctx: RequestContext): void {
  if (!ctx.operator) throw new DomainError('insufficient_scope', 'Review queues are for internal tools: send the operator credential (service-admin-key header)');
}

/**
 * The GraphQL twins of the /v1/me data-rights routes (the signed-in user's token, under the same
 * policy table: src/auth/user-token.policy.ts), and the review
 * queues of internal tools (docs/data-rights.md). Each field calls one service method.
 */
@Resolver()
export class DataRightsResolver {
  constructor(
    private readonly dr: DataRightsServices,
    private readonly policy: UserTokenPolicy,
  ) {}

  /** The user of the token, when the policy (D20, the same table as /v1/me) lets it do `capability`. */
  private user(ctx: RequestContext, capability: UserCapability) {
    return this.policy.authorize(ctx.actor, capability);
  }

  @Mutation(() => DsrJob, { description: 'Two-phase erasure of the signed-in user (POST /v1/me/delete).' })
  async deleteMe(@Ctx() ctx: RequestContext): Promise<DsrJob> {
    return job(await this.dr.erasure.requestDeletion(this.user(ctx, 'erasure').userId));
  }

  @Mutation(() => DsrJob, { description: 'Restricts processing of the signed-in user (POST /v1/me/restrict).' })
  async restrictMe(@Ctx() ctx: RequestContext): Promise<DsrJob> {
    return job(await this.dr.restriction.restrict(this.user(ctx, 'restriction').userId));
  }

  @Mutation(() => DsrJob, { description: 'Lifts the restriction (DELETE /v1/me/restrict).' })
  async liftMyRestriction(@Ctx() ctx: RequestContext): Promise<DsrJob> {
    return job(await this.dr.restriction.lift(this.user(ctx, 'restriction').userId));
  }

  @Mutation(() => DsrJob, { description: 'Objects to a kind of processing, e.g. feed_ranking (POST /v1/me/object).' })
  async objectToProcessing(@Arg('processing', () => String) processing: string, @Ctx() ctx: RequestContext): Promise<DsrJob> {
    return job(await this.dr.objections.object(this.user(ctx, 'objection').userId, processing));
  }

  @Mutation(() => DsrJob, { description: "Purges the signed-in user's biometric data within 60 s (DELETE /v1/me/biometrics)." })
  async purgeMyBiometrics(@Ctx() ctx: RequestContext): Promise<DsrJob> {
    return job(await this.dr.biometrics.request(this.user(ctx, 'biometric_purge').userId));
  }

  @Mutation(() => VerificationReviewRequest, { description: 'Asks for human review of one of your verifications (POST /v1/me/verifications/{id}/review).' })
  async requestVerificationReview(
    @Arg('verificationId', () => ID) verificationId: string,
    @Arg('reason', () => String) reason: string,
    @Ctx() ctx: RequestContext,
  ): Promise<VerificationReviewRequest> {
    const user = this.user(ctx, 'request_review');
    const opened = await this.dr.reviews.open(user.userId, verificationId, reason, tenantSliceOf(user));
    return { job: job(opened.job), reviewCase: reviewCase(opened.reviewCase) };
  }

  @Query(() => MyProfile, { description: "The signed-in user's profile with objections and pending changes." })
  async myProfile(@Ctx() ctx: RequestContext): Promise<MyProfile> {
    const user = this.user(ctx, 'read_account');
    return myProfile(user, await this.dr.profiles.profile(user.userId));
  }

  @Mutation(() => MyProfile, { description: 'Changes self-managed fields at once; verified ones become pending changes (PATCH /v1/me/profile).' })
  async updateMyProfile(@Arg('input', () => UpdateMyProfileInput) input: UpdateMyProfileInput, @Ctx() ctx: RequestContext): Promise<MyProfile> {
    const snake: Record<string, unknown> = {};
    const names: Record<string, string> = { displayName: 'display_name', handle: 'handle', publicLinks: 'public_links', bio: 'bio', legalName: 'legal_name', dateOfBirth: 'date_of_birth', nationality: 'nationality' };
    for (const [k, v] of Object.entries(input)) if (v !== undefined && names[k]) snake[names[k]] = v;
    const user = this.user(ctx, 'write_profile');
    return myProfile(user, await this.dr.profiles.update(user.userId, snake));
  }

  @Query(() => [ReviewCase], { description: 'Internal tools (operator credential): review cases, oldest first.' })
  async reviewCases(
    @Arg('status', () => String, { nullable: true }) status: string | null,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ReviewCase[]> {
    requireInternalTools(ctx);
    if (status != null && status !== 'open' && status !== 'decided') throw new DomainError('invalid_request', 'status must be open or decided');
    return (await this.dr.reviews.list({ status, first: first ?? undefined })).map(reviewCase);
  }

  @Mutation(() => ReviewCase, { description: 'Internal tools: uphold, approve or reject. Approve and reject re-decide the session and send its verification event again.' })
  async decideReviewCase(
    @Arg('id', () => ID) id: string,
    @Arg('decision', () => String) decision: 'uphold' | 'approve' | 'reject',
    @Arg('note', () => String) note: string,
    @Arg('reviewerId', () => String, { nullable: true }) reviewerId: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ReviewCase> {
    requireInternalTools(ctx);
    return reviewCase(await this.dr.reviews.decide(id, { decision, note, reviewerId }));
  }

  @Query(() => [ProfileChange], { description: 'Internal tools (operator credential): verified-field changes, oldest first.' })
  async profileChanges(
    @Arg('status', () => String, { nullable: true }) status: string | null,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ProfileChange[]> {
    requireInternalTools(ctx);
    if (status != null && !['pending', 'approved', 'rejected'].includes(status)) throw new DomainError('invalid_request', 'status must be pending, approved or rejected');
    return this.dr.profiles.list({ status: status as 'pending' | null, first: first ?? undefined });
  }

  @Mutation(() => ProfileChange, { description: 'Internal tools: approve (the value becomes the verified field) or reject a change.' })
  async decideProfileChange(
    @Arg('id', () => ID) id: string,
    @Arg('decision', () => String) decision: 'approve' | 'reject',
    @Arg('note', () => String, { nullable: true }) note: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ProfileChange> {
    requireInternalTools(ctx);
    return this.dr.profiles.decide(id, { decision, note });
  }
}
