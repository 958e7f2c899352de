import { Router } from 'express';
import { jsonBody } from '../http/json-body';
import { parseExtension, parseRetentionPatch } from '../src/retention/retention-policy';
import { RestOperations, type RetentionData } from './operations';
import { restRoute } from './rest-route';

const present = (r: RetentionData) => ({
  tenant_id: r.tenantId,
  livemode: r.livemode,
  biometric_template_days: r.biometricTemplateDays,
  selfie_image_days: r.selfieImageDays,
  selfie_video_days: r.selfieVideoDays,
  id_document_years: r.idDocumentYears,
  updated_at: r.updatedAt,
});

/** Tenant retention and the regulated per-session extension (docs/retention-and-audit.md): validate, run the GraphQL operation, present snake_case. */
export function retentionRouter(ops: RestOperations, router: Router = Router()): Router {
  router.get(
    '/developer/tenants/:tenantId/retention',
    restRoute(async (req, ctx) => ({ status: 200, body: present(await ops.run('retention', { tenantId: req.params.tenantId }, ctx)) })),
  );

  router.patch(
    '/developer/tenants/:tenantId/retention',
    jsonBody,
    restRoute(async (req, ctx) => {
      // The same check the service makes, here first so a float or a string is named in REST terms, not as a GraphQL variable.
      const p = parseRetentionPatch(req.body);
      const input = Object.fromEntries(
        Object.entries({ biometricTemplateDays: p.biometric_template_days, selfieImageDays: p.selfie_image_days, selfieVideoDays: p.selfie_video_days, idDocumentYears: p.id_document_years }).filter(([, v]) => v !== undefined),
      );
      return { status: 200, body: present(await ops.run('updateRetention', { tenantId: req.params.tenantId, input }, ctx)) };
    }),
  );

  router.post(
    '/verify/sessions/:id/retention',
    jsonBody,
    restRoute(async (req, ctx) => {
      const { years, reason } = parseExtension(req.body);
      const e = await ops.run('extendSessionRetention', { sessionId: req.params.id, idDocumentYears: years, reason }, ctx);
      return { status: 201, body: { id: e.id, session_id: e.sessionId, id_document_years: e.idDocumentYears, retain_until: e.retainUntil, artifacts: e.artifacts, created_at: e.createdAt } };
    }),
  );

  return router;
}
