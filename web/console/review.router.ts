import { systemClock, type Clock } from '../../src/clock';
import { sendEvidence } from '../../http/send-evidence';
import { pageForm } from '../page-input';
import { refuseConsoleInput } from './console-problems';
import { type Request, type Response, type Router } from 'express';
import { reviewPageOf } from './console-access';
import type { ConsoleGate } from './console-guard';
import { sendConsolePage } from './console-layout';
import { roleAtLeast } from '../../src/members/member';
import { DomainError, FieldsError } from '../../src/errors';
import { checkedHumanDecision } from '../../src/sessions/decision-history';
import { isQueueReason, type QueueFilter } from '../../src/console/review-queue';
import type { ConsoleWork } from '../../src/console/console-work';
import { isTier } from '../../src/sessions/tiers';
import { SESSION_ID_PATTERN } from '../../src/ids';
import { evidenceError, type EvidenceAccessService } from '../../src/vault/evidence-access.service';
import { wrap } from '../accounts/wrap';
import { caseNotFoundPage, casePage, type DecideForm } from './case-page';
import { casePath, QUEUE_PATH, queuePage } from './queue-page';
import { fill, word } from './review-html';

export const CONSOLE_EVIDENCE_PATH = '/console/evidence';
/** One purpose for every decision form: the token binds the POST to this sign-in (CSRF); which session is the service's question (404 for another tenant's). */
const DECIDE_PURPOSE = 'review:decide';

/**
 * The queue, the case and its decision form, and the case's images (docs/console.md): thin callers
 * of src/console. Everyone signed in reads; a reviewer or above decides; a viewer's POST is a 403.
 */
export function reviewRoutes(router: Router, d: { gate: ConsoleGate; work: ConsoleWork; evidence: EvidenceAccessService; now?: Clock }): void {
  const { gate } = d;
  const now = d.now ?? systemClock;
  const form = pageForm('16kb', refuseConsoleInput);
  const pageOf = (req: Request, res: Response) => reviewPageOf(gate, req, res);

  router.get(
    '/queue',
    gate.requireConsoleMember('viewer'),
    wrap(async (req, res) => {
      const member = gate.memberOf(res);
      const q = req.query as Record<string, unknown>;
      const filter: QueueFilter = {
        tier: typeof q.tier === 'string' && isTier(q.tier) ? q.tier : null,
        reason: isQueueReason(q.reason) ? q.reason : null,
        livemode: q.mode === 'live' ? true : q.mode === 'test' ? false : null,
      };
      const after = typeof q.after === 'string' && q.after ? q.after : null;
      let page;
      try {
        page = await d.work.queue.page(member.tenantId, filter, after);
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'invalid_request')) throw err;
        return void res.redirect(303, QUEUE_PATH); // a cursor that is not ours: the first page
      }
      sendConsolePage(req, res, { ...queuePage(pageOf(req, res), { filter, page, paged: after !== null, now: now() }), active: 'queue' });
    }),
  );

  async function showCase(req: Request, res: Response, formState: Omit<DecideForm, 'formToken'>, status = 200): Promise<void> {
    const member = gate.memberOf(res);
    const p = pageOf(req, res);
    const id = String(req.params.id);
    const file = SESSION_ID_PATTERN.test(id) ? await d.work.cases.open(member, id, req.id, { evidence: roleAtLeast(member.role, 'reviewer') }).catch((err: unknown) => (err instanceof DomainError && err.code === 'not_found' ? null : Promise.reject(err))) : null;
    if (!file) return sendConsolePage(req, res, { ...caseNotFoundPage(p), status: 404, active: 'queue' });
    const formToken = roleAtLeast(member.role, 'reviewer') ? gate.formToken(res, DECIDE_PURPOSE) : null;
    const signInId = gate.sessionOf(res).id;
    const evidence = (artifactId: string) => `${CONSOLE_EVIDENCE_PATH}/${artifactId}?${d.evidence.consoleQuery(artifactId, signInId)}`;
    sendConsolePage(req, res, { ...casePage(p, file, { form: { ...formState, formToken }, evidence }), status, active: 'queue' });
  }

  router.get(
    '/cases/:id',
    gate.requireConsoleMember('viewer'),
    wrap(async (req, res) => {
      const done = typeof req.query.done === 'string' ? req.query.done : null;
      const p = pageOf(req, res);
      const text = done === 'kept' ? p.rm.reviewKept : done === 'decline_pending' ? p.rm.declinePending : done && /^(approve|decline|reverse)$/.test(done) ? fill(p.rm.decided, { decision: word(p.rm, `decision_${done}`, done) }) : null;
      await showCase(req, res, { errors: [], done: text });
    }),
  );

  // The third action: the form posts here; on success the browser goes back to the case with its notice.
  router.post(
    '/cases/:id/decisions',
    gate.requireConsoleMember('reviewer'),
    form,
    wrap(async (req, res) => {
      const member = gate.memberOf(res);
      const id = String(req.params.id);
      if (!gate.checkFormToken(res, DECIDE_PURPOSE, req.body?.form_token)) return void res.redirect(303, casePath(id));
      const p = pageOf(req, res);
      const decision: unknown = req.body?.decision;
      const reason: unknown = req.body?.reason;
      const kept = { chosen: typeof decision === 'string' ? decision : undefined, reason: typeof reason === 'string' ? reason.slice(0, 2000) : undefined };
      // What makes a decision valid is the service's rule (checkedHumanDecision); the form adds its own bound on a reason's length.
      const wrong = fieldsRefusedBy(() => checkedHumanDecision({ decision, reason }));
      if (typeof reason === 'string' && reason.length > 2000 && !wrong.includes('reason')) wrong.push('reason');
      if (wrong.length) return showCase(req, res, { ...kept, errors: wrong.map((field) => ({ field, text: field === 'decision' ? p.rm.badDecision : p.rm.badReason })) }, 400);
      try {
        const outcome = await d.work.decisions.decide(member, id, { decision, reason });
        res.redirect(303, `${casePath(id)}?done=${outcome.kind === 'decline_pending' ? 'decline_pending' : String(decision)}`);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'not_found') return sendConsolePage(req, res, { ...caseNotFoundPage(p), status: 404, active: 'queue' });
        if (err instanceof DomainError && (err.code === 'invalid_state' || err.code === 'invalid_request' || err.code === 'user_restricted')) {
          return showCase(req, res, { ...kept, errors: [{ field: 'decision', text: fill(p.rm.decisionConflict, { message: err.message }) }] }, 409);
        }
        throw err;
      }
    }),
  );

  // The user's review request kept as decided (D15): settled `upheld`, the user told; the session is left as it is.
  router.post(
    '/cases/:id/review-request',
    gate.requireConsoleMember('reviewer'),
    form,
    wrap(async (req, res) => {
      const member = gate.memberOf(res);
      const id = String(req.params.id);
      if (!gate.checkFormToken(res, DECIDE_PURPOSE, req.body?.form_token)) return void res.redirect(303, casePath(id));
      const p = pageOf(req, res);
      try {
        await d.work.decisions.keepDecision(member, id, req.body?.reason);
        res.redirect(303, `${casePath(id)}?done=kept`);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'not_found') return sendConsolePage(req, res, { ...caseNotFoundPage(p), status: 404, active: 'queue' });
        if (err instanceof DomainError && err.code === 'invalid_request') return showCase(req, res, { errors: [{ field: 'keep-reason', text: p.rm.badReason }] }, 400);
        if (err instanceof DomainError && err.code === 'invalid_state') return showCase(req, res, { errors: [{ field: 'keep-reason', text: fill(p.rm.decisionConflict, { message: err.message }) }] }, 409);
        throw err;
      }
    }),
  );

  // A case's images: a link signed for this very sign-in (never a bearer link), opened with it; audited with the member.
  router.get(
    '/evidence/:artifactId',
    gate.requireConsoleMember('reviewer'),
    wrap(async (req, res) => {
      const member = gate.memberOf(res);
      const q = req.query as Record<string, string | undefined>;
      const opened = await d.evidence.open(String(req.params.artifactId), q.expires, q.sig, req.id, { memberId: member.memberId, tenantId: member.tenantId, signInId: gate.sessionOf(res).id });
      res.setHeader('cache-control', 'private, no-store');
      if (opened instanceof DomainError || opened === 'forbidden' || opened === 'gone') {
        const err = opened instanceof DomainError ? opened : evidenceError(opened);
        return void res.status(err.code === 'gone' ? 410 : err.code === 'user_restricted' ? 409 : 403).type('text/plain').send(err.message);
      }
      await sendEvidence(res, opened);
    }),
  );
}

/** The fields a check refuses (its FieldsError), in its order; none when it passes. */
function fieldsRefusedBy(check: () => unknown): string[] {
  try {
    check();
    return [];
  } catch (err) {
    if (err instanceof FieldsError) return err.fields.map((f) => f.field);
    throw err;
  }
}
