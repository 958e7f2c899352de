import { z } from 'zod';
import { notFound } from '../src/errors';
import { defineRoute, type RouteRecord } from './route-record';
import { presentSession } from './session.presenter';
import { sessionIdParam } from './sessions.routes';

/**
 * T5 chip submission: the one write a client_secret may make (docs/api-behaviour.md, "Credentials"),
 * which is why GraphQL has no mutation for it. The service does the work; the session is then read
 * back as GET /v1/verify/sessions/{id} reads it, so the body is the same definition shape.
 */
export const CHIP_ROUTES: readonly RouteRecord[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/verify/sessions/:id/chip',
    guard: { kind: 'client_secret', owns: 'session' },
    bucket: 'default',
    bodyLimits: false,
    // The values ChipSubmissionService decodes and judges, with codes of their own (data_group_not_allowed,
    // payload_too_large) naming the field; here only the field names, the types and `required` as
    // documentation. Their absence is the service's 400 too, after it has found the session the
    // client_secret's own: another session's secret is a 404 whatever the body (D6).
    body: z
      .object({
        sod: z.unknown().optional().meta({ type: 'string', description: 'The Document Security Object, base64' }),
        data_groups: z.unknown().optional().meta({ type: 'object', additionalProperties: { type: 'string' }, description: 'Data groups by number ("1", "2", ...), base64; DG1 is required' }),
      })
      .strict()
      .meta({ id: 'ChipSubmission', required: ['sod', 'data_groups'] }),
    responses: { 200: { description: 'The session, its chip check done', schema: { component: 'Session' } } },
    errors: ['BadRequest', 'NotFound', 'Conflict', 'UnsupportedMediaType', 'PayloadTooLarge'],
    doc: { operationId: 'submitChip', tags: ['sessions'], summary: "Submit the passport chip's data (the session's client_secret)" },
    handler: async ({ req, body, ctx, services }) => {
      const id = sessionIdParam(req.params.id);
      await services.chip.submit(ctx.actor, id, body);
      const session = await services.sessions.find(ctx.actor, id);
      if (!session) throw notFound();
      return { status: 200, body: presentSession(session) };
    },
  }),
];
