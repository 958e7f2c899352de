import { tenantSliceOf } from '../src/auth/user-token.policy';
import type { UserCapability } from '../src/auth/user-token.policy';
import type { DsrJob } from '../src/data-rights/dsr-job.service';
import { endUserOf } from '../src/data-rights/end-user';
import type { ReviewCase } from '../src/data-rights/review-case.service';
import { notFound } from '../src/errors';
import { z } from 'zod';
import { DSR_ID_PATTERN, SESSION_ID_PATTERN } from '../src/ids';
import { profileShownTo } from '../src/users/account-disclosure';
import { presentDsrJob } from './dsr-job.presenter';
import { objectWithFields } from './request-validation';
import { defineRoute, type RouteRecord } from './route-record';
import type { V1Services } from './v1-services';

/** The end user's own token with `capability` (D20); `owns: 'session'`: the path names a verification. The /v1/me gate (rest-adapter/me-gate.ts) checks it. */
const user = (capability: UserCapability, owns?: 'session') => ({ kind: 'user_token' as const, capability, ...(owns ? { owns } : {}) });
const DATA_RIGHTS = ['data-rights'] as const;
const DSR_JOB = { component: 'DsrJob' } as const;
const SESSION_ID = { id: { component: 'SessionId' } };

export const presentReviewCase = (c: ReviewCase) => ({
  id: c.id,
  verification_id: c.sessionId,
  status: c.status,
  decision: c.decision,
  requested_at: c.createdAt.toISOString(),
  decided_at: c.decidedAt?.toISOString() ?? null,
  dsr_job_id: c.dsrJobId,
});

function verificationIdParam(id: string | string[] | undefined): string {
  if (typeof id !== 'string' || !SESSION_ID_PATTERN.test(id)) throw notFound('Verification');
  return id;
}

/** A DSR job as its user sees it: an export carries its link and document key. */
const presentOwn = async (services: V1Services, job: DsrJob) => (job.kind === 'export' ? presentDsrJob(job, await services.dataRights.exports.delivery(job)) : presentDsrJob(job));

/**
 * /v1/me and the user's data-rights routes (docs/accounts-and-oidc.md, docs/data-rights.md): the end user's
 * JWT access token only, checked by the /v1/me gate before these run; mounted like every record (the body
 * and query meet the input limits there). Each calls one service; requests answer 202 with their DSR job, reads 200.
 */
export const ME_ROUTES: readonly RouteRecord[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/me',
    guard: user('read_account'),
    bucket: 'default',
    responses: { 200: { description: 'The account', schema: { component: 'Me' } } },
    doc: { operationId: 'getMe', tags: ['accounts'], summary: "The signed-in end user's own account, verification and sessions" },
    handler: async ({ ctx, services }) => ({ status: 200, body: await services.me.view(endUserOf(ctx)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/me/delete',
    guard: user('erasure'),
    bucket: 'default',
    body: { read: 'json_if_any' },
    responses: { 202: { description: 'The erasure request (a DSR job, `in_progress` until the hard purge)', schema: DSR_JOB } },
    doc: { operationId: 'deleteMe', tags: DATA_RIGHTS, summary: 'Two-phase erasure of the signed-in user' },
    handler: async ({ ctx, services }) => ({ status: 202, body: presentDsrJob(await services.userRights.erasure.requestDeletion(endUserOf(ctx).userId)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/me/restrict',
    guard: user('restriction'),
    bucket: 'default',
    body: { read: 'json_if_any' },
    responses: { 202: { description: 'The restriction request (completed)', schema: DSR_JOB } },
    doc: { operationId: 'restrictMe', tags: DATA_RIGHTS, summary: 'Restrict processing of the signed-in user' },
    handler: async ({ ctx, services }) => ({ status: 202, body: presentDsrJob(await services.userRights.restriction.restrict(endUserOf(ctx).userId), { action: 'restrict' }) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/me/restrict',
    guard: user('restriction'),
    bucket: 'default',
    responses: { 202: { description: 'The lifting request (completed; `details.action` is `lift`)', schema: DSR_JOB } },
    doc: { operationId: 'liftMyRestriction', tags: DATA_RIGHTS, summary: 'Lift the restriction' },
    handler: async ({ ctx, services }) => ({ status: 202, body: presentDsrJob(await services.userRights.restriction.lift(endUserOf(ctx).userId), { action: 'lift' }) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/me/object',
    guard: user('objection'),
    bucket: 'default',
    body: { read: 'json' },
    responses: { 202: { description: 'The objection request', schema: DSR_JOB } },
    errors: ['BadRequest'],
    doc: { operationId: 'objectToProcessing', tags: DATA_RIGHTS, summary: 'Object to a kind of processing' },
    handler: async ({ req, ctx, services }) => {
      const body = objectWithFields(req.body, ['processing']);
      return { status: 202, body: presentDsrJob(await services.userRights.objections.object(endUserOf(ctx).userId, body.processing)) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/me/biometrics',
    guard: user('biometric_purge'),
    bucket: 'default',
    responses: { 202: { description: 'The biometric purge request', schema: DSR_JOB } },
    doc: { operationId: 'purgeMyBiometrics', tags: DATA_RIGHTS, summary: "Purge the signed-in user's biometric data within 60 s" },
    handler: async ({ ctx, services }) => ({ status: 202, body: presentDsrJob(await services.userRights.biometrics.request(endUserOf(ctx).userId)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/me/verifications/:id/review',
    guard: user('request_review', 'session'),
    bucket: 'default',
    body: { read: 'json' },
    params: SESSION_ID,
    responses: {
      202: {
        description: 'The review request and its case',
        schema: { jsonSchema: { allOf: [{ $ref: '#/components/schemas/DsrJob' }, { type: 'object', required: ['review_case'], properties: { review_case: { $ref: '#/components/schemas/ReviewCase' } } }] } },
      },
    },
    errors: ['BadRequest', 'NotFound', 'Conflict'],
    doc: { operationId: 'requestVerificationReview', tags: DATA_RIGHTS, summary: 'Ask for human review of one of your verification decisions' },
    handler: async ({ req, ctx, services }) => {
      const user = endUserOf(ctx);
      const id = verificationIdParam(req.params.id);
      const body = objectWithFields(req.body, ['reason']);
      const { job, reviewCase } = await services.userRights.reviews.open(user.userId, id, body.reason, tenantSliceOf(user));
      return { status: 202, body: presentDsrJob(job, { review_case: presentReviewCase(reviewCase) }) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/me/verifications/:id/review',
    guard: user('read_account', 'session'),
    bucket: 'default',
    params: SESSION_ID,
    responses: {
      200: { description: 'The cases, newest first', schema: { jsonSchema: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: { $ref: '#/components/schemas/ReviewCase' } } } } } },
    },
    errors: ['NotFound'],
    doc: { operationId: 'getVerificationReviews', tags: DATA_RIGHTS, summary: 'The review cases of one of your verifications and their status' },
    handler: async ({ req, ctx, services }) => {
      const user = endUserOf(ctx);
      const cases = await services.userRights.reviews.forUser(user.userId, verificationIdParam(req.params.id), tenantSliceOf(user));
      return { status: 200, body: { data: cases.map(presentReviewCase) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/me/profile',
    guard: user('read_account'),
    bucket: 'default',
    responses: { 200: { description: 'The profile', schema: { component: 'MyProfile' } } },
    doc: { operationId: 'getMyProfile', tags: DATA_RIGHTS, summary: "The signed-in user's profile, objections and pending changes" },
    handler: async ({ ctx, services }) => {
      const user = endUserOf(ctx);
      return { status: 200, body: profileShownTo(user, await services.userRights.profiles.profile(user.userId)) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/me/profile',
    guard: user('write_profile'),
    bucket: 'default',
    body: { read: 'json' },
    responses: { 200: { description: 'The profile with what is pending', schema: { component: 'MyProfile' } } },
    errors: ['BadRequest', 'Conflict'],
    doc: { operationId: 'updateMyProfile', tags: DATA_RIGHTS, summary: 'Change the profile' },
    handler: async ({ req, ctx, services }) => {
      const user = endUserOf(ctx);
      return { status: 200, body: profileShownTo(user, await services.userRights.profiles.update(user.userId, req.body)) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/me/requests',
    guard: user('read_account'),
    bucket: 'default',
    responses: { 200: { description: 'The requests', schema: { listOf: 'DsrJob' } } },
    doc: { operationId: 'listMyRequests', tags: DATA_RIGHTS, summary: "The signed-in user's data-subject requests, newest first (an export's link and document key included)" },
    handler: async ({ ctx, services }) => {
      const user = endUserOf(ctx);
      const jobs = await services.dsrJobs.list({ userId: user.userId, sliceOfTenant: tenantSliceOf(user) ?? undefined, first: 200 });
      return { status: 200, body: { object: 'list', data: await Promise.all(jobs.map((job) => presentOwn(services, job))) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/me/data-export',
    guard: user('export'),
    bucket: 'default',
    responses: {
      202: { description: 'The request (a DSR job)', schema: DSR_JOB },
      409: { description: 'The account is being deleted (`invalid_state`)', schema: { component: 'ErrorBody' } },
    },
    doc: { operationId: 'requestDataExport', tags: DATA_RIGHTS, summary: 'Export everything about the user as a signed zip (portability); asking again while one is open returns it' },
    handler: async ({ ctx, services }) => ({ status: 202, body: await presentOwn(services, await services.dataRights.exports.request(endUserOf(ctx).userId)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/me/requests/:id/confirm',
    guard: user('confirm_delegated_request'),
    bucket: 'default',
    // No body: the token travels in the query, exactly as the mailed link carries it; the service judges it.
    params: { id: z.string().regex(DSR_ID_PATTERN) },
    responses: {
      200: { description: 'The request (a DSR job)', schema: DSR_JOB },
      400: { description: 'A missing or wrong confirmation token (`invalid_request`)', schema: { component: 'ErrorBody' } },
      409: { description: 'Not awaiting confirmation any more (`invalid_state`)', schema: { component: 'ErrorBody' } },
    },
    errors: ['NotFound'],
    doc: { operationId: 'confirmDelegatedRequest', tags: DATA_RIGHTS, summary: "Confirm a tenant's delegated request: needs both the user's token and the token of the mailed link" },
    handler: async ({ req, ctx, services }) => {
      const job = await services.dataRights.delegated.confirm(endUserOf(ctx).userId, String(req.params.id), req.query.token);
      return { status: 200, body: await presentOwn(services, job) };
    },
  }),
];
