import { z } from 'zod';
import { MAX_EXTENDED_ID_DOCUMENT_YEARS, RETENTION_RANGES } from '../src/retention/retention-policy';
import type { RetentionRecord } from '../src/retention/retention.service';
import { defineRoute, tenantKeyOf, type RouteRecord } from './route-record';
import { sessionIdParam } from './sessions.routes';

const MANAGE = { kind: 'tenant_key' as const, scope: 'retention:manage' as const, owns: 'tenant' as const };
const TAGS = ['retention'] as const;

const present = (r: RetentionRecord) => ({
  tenant_id: r.tenant_id,
  livemode: r.livemode,
  biometric_template_days: r.biometric_template_days,
  selfie_image_days: r.selfie_image_days,
  selfie_video_days: r.selfie_video_days,
  id_document_years: r.id_document_years,
  updated_at: r.updated_at,
});

const days = (field: keyof typeof RETENTION_RANGES) => z.int().min(RETENTION_RANGES[field].min).max(RETENTION_RANGES[field].max).optional();
const patchBody = z
  .object({
    biometric_template_days: days('biometric_template_days'),
    selfie_image_days: days('selfie_image_days'),
    selfie_video_days: days('selfie_video_days'),
    id_document_years: days('id_document_years'),
  })
  .strict()
  .meta({ id: 'RetentionPatch' });

/** Tenant retention and the regulated per-session extension (docs/retention-and-audit.md): each record calls one RetentionService use case. */
export const RETENTION_ROUTES: readonly RouteRecord[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/developer/tenants/:tenantId/retention',
    guard: MANAGE,
    bucket: 'default',
    responses: { 200: { description: "The tenant's retention in the key's mode", schema: { component: 'Retention' } } },
    errors: ['NotFound'],
    doc: { operationId: 'getRetention', tags: TAGS, summary: "Read the tenant's retention" },
    handler: async ({ req, ctx, services }) => ({ status: 200, body: present(await services.retention.get(tenantKeyOf(ctx), String(req.params.tenantId))) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/developer/tenants/:tenantId/retention',
    guard: MANAGE,
    bucket: 'default',
    body: patchBody,
    responses: { 200: { description: 'The retention as changed', schema: { component: 'Retention' } } },
    errors: ['BadRequest', 'NotFound', 'UnsupportedMediaType'],
    doc: { operationId: 'updateRetention', tags: TAGS, summary: "Change the tenant's retention" },
    handler: async ({ req, body, ctx, services }) => ({ status: 200, body: present(await services.retention.update(tenantKeyOf(ctx), String(req.params.tenantId), body)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/verify/sessions/:id/retention',
    guard: { kind: 'tenant_key', scope: 'sessions:write', owns: 'session' },
    bucket: 'default',
    body: z.object({ id_document_years: z.int().min(1).max(MAX_EXTENDED_ID_DOCUMENT_YEARS), reason: z.string().trim().min(1).max(500) }).strict(),
    responses: { 201: { description: 'The extension', schema: z
          .object({ id: z.string().regex(/^rext_[A-Za-z0-9]{24}$/), session_id: z.string(), id_document_years: z.int(), retain_until: z.iso.datetime(), artifacts: z.int().min(0), created_at: z.iso.datetime() })
          .strict() } },
    errors: ['BadRequest', 'NotFound', 'UnsupportedMediaType'],
    doc: { operationId: 'extendSessionRetention', tags: TAGS, summary: "Keep a session's ID documents longer (regulated tenants)" },
    handler: async ({ req, body, ctx, services }) => {
      const e = await services.retention.extendSession(tenantKeyOf(ctx), sessionIdParam(req.params.id), body);
      return { status: 201, body: { id: e.id, session_id: e.session_id, id_document_years: e.id_document_years, retain_until: e.retain_until, artifacts: e.artifacts, created_at: e.created_at } };
    },
  }),
];
