import { type Request, type Response, type Router } from 'express';
import { pageForm, pageJson } from '../page-input';
import { refuseConsoleInput } from './console-problems';
import { CONSOLE_PATH } from '../../src/oidc/first-party-sign-in';
import type { FactorOutcome } from '../../src/members/second-factor.service';
import { wrap } from '../accounts/wrap';
import type { ConsoleGate } from './console-guard';
import { isConsolePath } from './console-guard';
import { chromeOf, sendConsolePage } from './console-layout';
import { enrolPage, recoveryCodesPage, verifyPage } from './second-factor-pages';

const SF = '/second-factor';
const PURPOSE = 'console:second-factor';

/**
 * The second factor's pages (docs/console.md, "Second factor"): verification at each console sign-in
 * of a reviewer and above (passkey, TOTP or a recovery code), the first enrolment, and the recovery
 * codes shown once. The passkey ceremonies are JSON calls from /console/assets/console.js, each with
 * the page's form token in `x-form-token`.
 */
export function secondFactorRoutes(router: Router, gate: ConsoleGate): void {
  const s = gate.services;
  const form = pageForm('8kb', refuseConsoleInput);
  const json = pageJson('64kb', (_req, res) => void res.status(400).json({ error: 'invalid_request' }));
  const signedIn = gate.requireConsoleSignIn();
  const returnOf = (value: unknown): string => (isConsolePath(value) && !String(value).startsWith(`${CONSOLE_PATH}${SF}`) ? value : CONSOLE_PATH);
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');

  async function passed(res: Response): Promise<void> {
    await s.sessions.passSecondFactor(gate.sessionOf(res).id);
  }

  async function showVerify(req: Request, res: Response, error: string | null, errorField?: 'code' | 'recovery', status = 200): Promise<void> {
    const { m } = chromeOf(req, res);
    const factors = await s.factors.factorsOf(gate.sessionOf(res).userId);
    const returnTo = returnOf(req.query.return ?? req.body?.return);
    if (!s.factors.hasAny(factors)) return void res.redirect(303, `${CONSOLE_PATH}${SF}/enrol?return=${encodeURIComponent(returnTo)}`);
    sendConsolePage(req, res, { status, title: m.verifyTitle, script: factors.passkeys > 0, body: verifyPage(m, { factors, formToken: gate.formToken(res, PURPOSE), returnTo, error, errorField }) });
  }

  router.get(
    SF,
    signedIn,
    wrap(async (req, res) => {
      if (gate.sessionOf(res).secondFactorAt) return void res.redirect(303, returnOf(req.query.return));
      await showVerify(req, res, null);
    }),
  );

  /** The member a second-factor attempt is audited with: who is signing in, at the tenant of this sign-in. */
  const who = (res: Response) => ({ tenantId: gate.memberOf(res).tenantId, memberId: gate.memberOf(res).memberId });

  const codeForm = (path: string, field: 'code' | 'recovery', check: (userId: string, value: string, res: Response) => Promise<FactorOutcome>) =>
    router.post(
      path,
      form,
      signedIn,
      wrap(async (req, res) => {
        const { m } = chromeOf(req, res);
        if (!gate.checkFormToken(res, PURPOSE, req.body?.form_token)) return showVerify(req, res, m.formExpired, field, 400);
        const outcome = await check(gate.sessionOf(res).userId, str(req.body?.[field]).slice(0, 64), res);
        if (outcome === 'rate_limited') return showVerify(req, res, m.rateLimited, field, 429);
        if (outcome !== 'ok') return showVerify(req, res, field === 'code' ? m.badCode : m.badRecovery, field, 400);
        await passed(res);
        res.redirect(303, returnOf(req.body?.return));
      }),
    );
  codeForm(`${SF}/totp`, 'code', (userId, code, res) => s.factors.verifyTotp(userId, code, who(res)));
  codeForm(`${SF}/recovery`, 'recovery', (userId, code, res) => s.factors.useRecoveryCode(userId, code, who(res)));

  /** JSON calls of the passkey script: the form token travels in a header a cross-site form cannot set. */
  const ceremony = (handler: (req: Request, res: Response) => Promise<void>) =>
    wrap(async (req, res) => {
      if (!gate.checkFormToken(res, PURPOSE, req.header('x-form-token'))) return void res.status(403).json({ error: 'form_expired' });
      await handler(req, res);
    });

  router.post(
    `${SF}/passkey/options`,
    signedIn,
    ceremony(async (_req, res) => {
      const session = gate.sessionOf(res);
      const options = await s.factors.passkeyAuthenticationOptions(session.userId);
      await s.sessions.setChallenge(session.id, options.challenge);
      res.json(options);
    }),
  );
  router.post(
    `${SF}/passkey`,
    json,
    signedIn,
    ceremony(async (req, res) => {
      const session = gate.sessionOf(res);
      const challenge = await s.sessions.takeChallenge(session.id);
      const outcome = challenge ? await s.factors.verifyPasskey(session.userId, req.body?.response, challenge, who(res)) : 'wrong';
      if (outcome !== 'ok') return void res.status(outcome === 'rate_limited' ? 429 : 400).json({ error: outcome });
      await passed(res);
      res.json({ redirect: returnOf(req.body?.return) });
    }),
  );

  /** Enrolment: when the person has no factor yet, or has just passed one (adding a second needs the first). */
  async function mayEnrol(res: Response): Promise<boolean> {
    const session = gate.sessionOf(res);
    return session.secondFactorAt !== null || !s.factors.hasAny(await s.factors.factorsOf(session.userId));
  }
  async function showEnrol(req: Request, res: Response, error: string | null, status = 200): Promise<void> {
    const { m, member } = chromeOf(req, res);
    const totp = await s.factors.beginTotp(gate.sessionOf(res).userId, member?.email ?? 'console');
    const qrDataUrl = totp ? await (await import('qrcode')).default.toDataURL(totp.uri, { margin: 1, width: 200 }) : null;
    sendConsolePage(req, res, { status, title: m.enrolTitle, script: true, body: enrolPage(m, { totp: totp && qrDataUrl ? { secret: totp.secret, qrDataUrl } : null, formToken: gate.formToken(res, PURPOSE), returnTo: returnOf(req.query.return ?? req.body?.return), error }) });
  }
  router.get(
    `${SF}/enrol`,
    signedIn,
    wrap(async (req, res) => {
      if (!(await mayEnrol(res))) return void res.redirect(303, `${CONSOLE_PATH}${SF}?return=${encodeURIComponent(returnOf(req.query.return))}`);
      await showEnrol(req, res, null);
    }),
  );
  const recoveryPath = (returnTo: string) => `${CONSOLE_PATH}${SF}/recovery-codes?return=${encodeURIComponent(returnTo)}`;
  router.post(
    `${SF}/enrol/totp`,
    form,
    signedIn,
    wrap(async (req, res) => {
      const { m, member } = chromeOf(req, res);
      if (!(await mayEnrol(res))) return void res.redirect(303, `${CONSOLE_PATH}${SF}`);
      if (!gate.checkFormToken(res, PURPOSE, req.body?.form_token)) return showEnrol(req, res, m.formExpired, 400);
      const outcome = await s.factors.confirmTotp(gate.sessionOf(res).userId, str(req.body?.code).slice(0, 64), { tenantId: member!.tenantId, memberId: member!.memberId });
      if (outcome !== 'ok') return showEnrol(req, res, outcome === 'rate_limited' ? m.rateLimited : m.badCode, outcome === 'rate_limited' ? 429 : 400);
      await passed(res);
      res.redirect(303, recoveryPath(returnOf(req.body?.return)));
    }),
  );
  router.post(
    `${SF}/enrol/passkey/options`,
    signedIn,
    ceremony(async (_req, res) => {
      if (!(await mayEnrol(res))) return void res.status(403).json({ error: 'second_factor_required' });
      const session = gate.sessionOf(res);
      const options = await s.factors.passkeyRegistrationOptions(session.userId, chromeOf(_req, res).member?.email ?? 'console');
      await s.sessions.setChallenge(session.id, options.challenge);
      res.json(options);
    }),
  );
  router.post(
    `${SF}/enrol/passkey`,
    json,
    signedIn,
    ceremony(async (req, res) => {
      if (!(await mayEnrol(res))) return void res.status(403).json({ error: 'second_factor_required' });
      const session = gate.sessionOf(res);
      const member = chromeOf(req, res).member!;
      const challenge = await s.sessions.takeChallenge(session.id);
      const ok = challenge ? await s.factors.registerPasskey(session.userId, req.body?.response, challenge, { tenantId: member.tenantId, memberId: member.memberId }) : false;
      if (!ok) return void res.status(400).json({ error: 'wrong' });
      await passed(res);
      res.json({ redirect: recoveryPath(returnOf(req.body?.return)) });
    }),
  );

  router.get(
    `${SF}/recovery-codes`,
    gate.requireConsoleMember('viewer'),
    wrap(async (req, res) => {
      const { m } = chromeOf(req, res);
      const userId = gate.sessionOf(res).userId;
      const factors = await s.factors.factorsOf(userId);
      // Shown once: issued on the first visit after the first factor, never again on this page.
      const codes = !factors.recoveryCodesIssued && s.factors.hasAny(factors) ? await s.factors.issueRecoveryCodes(userId, who(res)) : null;
      sendConsolePage(req, res, { title: m.recoveryTitle, body: recoveryCodesPage(m, { codes, left: factors.recoveryCodesLeft, returnTo: returnOf(req.query.return) }) });
    }),
  );
}
