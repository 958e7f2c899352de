import { Router } from 'express';
import type { ChipSubmissionService } from '../src/chip/chip-submission.service';
import { notFound } from '../src/errors';
import { jsonBody } from '../http/json-body';
import type { SessionService } from '../src/sessions/session.service';
import { presentSession } from './session.presenter';
import { objectWithFields } from './request-validation';
import { sessionIdParam } from './sessions.router';
import { restRoute } from './rest-route';

/**
 * T5 chip submission: the one write a client_secret may make (docs/api-behaviour.md, "Credentials"),
 * which is why GraphQL has no mutation for it.
 * The service does the work; the session is then read back as GET /v1/verify/sessions/{id} reads it,
 * so the body is the same definition shape as every other route.
 */
export function chipRouter({ sessions, chip }: { sessions: SessionService; chip: ChipSubmissionService }, router: Router = Router()): Router {
  router.post(
    '/verify/sessions/:id/chip',
    jsonBody,
    restRoute(async (req, ctx) => {
      const id = sessionIdParam(req.params.id);
      objectWithFields(req.body, ['sod', 'data_groups']);
      await chip.submit(ctx.actor, id, req.body);
      const session = await sessions.find(ctx.actor, id);
      if (!session) throw notFound();
      return { status: 200, body: presentSession(session) };
    }),
  );

  return router;
}
