import { type Request, type Response, type Router } from 'express';
import { pageForm } from '../page-input';
import { refuseAccountInput } from './account-problems';
import type { EndUserActor } from '../../src/auth/actor';
import { UserTokenRefusal, type UserCapability, type UserTokenPolicy } from '../../src/auth/user-token.policy';
import { PORTAL_USER_SCOPES } from '../../src/oidc/user-token-scopes';
import type { DataRightsServices } from '../../src/data-rights/data-rights.services';
import type { DsrJobService } from '../../src/data-rights/dsr-job.service';
import type { DataExportService } from '../../src/data-rights/export/data-export.service';
import { DomainError, FieldsError } from '../../src/errors';
import { SESSION_ID_PATTERN } from '../../src/ids';
import type { ConnectedAppsService } from '../../src/oidc/connected-apps.service';
import { ACCOUNT_PAGES_PATH, FIRST_PARTY_CLIENT_ID, type SignedIn } from '../../src/oidc/first-party-sign-in';
import type { UserService } from '../../src/users/user.service';
import type { UserVerificationsService } from '../../src/users/user-verifications.service';
import { assertAcceptableInput } from '../../src/validation/input-limits';
import { sendProblem } from './account-problems';
import { accountPageOf, type AccountSession } from './account-session';
import { portalMessagesFor } from './portal-messages';
import { deletedPage, deletePage, downloadPage, exportPage, overviewPage, profilePage, reviewPage, signedOutPage, type PortalPage, type ProfileForm } from './portal-pages';
import { wrap } from './wrap';

export type PortalDeps = {
  session: AccountSession;
  users: UserService;
  policy: UserTokenPolicy;
  rights: DataRightsServices;
  exports: DataExportService;
  dsrJobs: DsrJobService;
  verifications: UserVerificationsService;
  apps: ConnectedAppsService;
};

/** What a one-button form does (its service call), and the notice the portal shows after it. */
const ACTIONS = {
  restrict: { path: '/restrict', capability: 'restriction', notice: 'done_restrict', run: (r: DataRightsServices, userId: string) => r.restriction.restrict(userId) },
  lift: { path: '/restrict/lift', capability: 'restriction', notice: 'done_lift', run: (r: DataRightsServices, userId: string) => r.restriction.lift(userId) },
  object: { path: '/object', capability: 'objection', notice: 'done_object', run: (r: DataRightsServices, userId: string) => r.objections.object(userId, 'feed_ranking') },
  biometrics: { path: '/biometrics/delete', capability: 'biometric_purge', notice: 'done_biometrics', run: (r: DataRightsServices, userId: string) => r.biometrics.request(userId) },
} as const satisfies Record<string, { path: string; capability: UserCapability; notice: string; run: (r: DataRightsServices, userId: string) => Promise<unknown> }>;
type Notice = (typeof ACTIONS)[keyof typeof ACTIONS]['notice'] | 'done_review' | 'done_profile' | 'done_revoked' | 'done_export';
const NOTICES: readonly string[] = [...Object.values(ACTIONS).map((a) => a.notice), 'done_review', 'done_profile', 'done_revoked', 'done_export'];

/**
 * The account portal at /account (D20, docs/accounts-and-oidc.md, "The account portal"): the
 * service's own first-party client, signed in through the provider like the other account pages.
 * Each action is authorized by the one policy of user tokens (src/auth/user-token.policy.ts) as the
 * portal's token would be (scope `data_rights`; export and erasure need a sign-in within the
 * re-authentication window, else the portal signs in again with max_age and comes back), then
 * calls its service. Every POST carries a form token bound to this sign-in and to the action.
 */
export function portalRoutes(router: Router, d: PortalDeps): void {
  // The profile's fields are judged by ProfileService, which names the field to change on the form.
  const form = pageForm('16kb', refuseAccountInput, ['display_name', 'handle', 'bio', 'public_links']);
  const pageOf = (req: Request): PortalPage => {
    const p = accountPageOf(req, req.query.lang);
    return { ...p, pm: portalMessagesFor(p.locale) };
  };

  /** Who is signed in, with an account that still may act; otherwise the browser is sent to sign in (and back to `returnTo`). */
  async function signedIn(req: Request, res: Response, returnTo: string): Promise<SignedIn | null> {
    const who = d.session.who(req);
    // The state alone (one coalesced read), not the whole row with its sealed fields: this runs on every page and form.
    const state = who ? await d.rights.gate.stateOf(who.userId) : null;
    if (who && (state === 'active' || state === 'restricted')) return who;
    if (who) d.session.signOut(res);
    d.session.signInThen(res, { returnTo, locale: pageOf(req).locale });
    return null;
  }

  /** The portal acting as its own token would (D20): the same policy as /v1/me with the portal's scopes and this sign-in's time. */
  const actorOf = (who: SignedIn): EndUserActor => ({
    kind: 'end_user',
    userId: who.userId,
    clientId: FIRST_PARTY_CLIENT_ID,
    tenantId: null,
    // No token is minted: the pages act for the signed-in user, and only the policy reads this actor.
    sub: who.userId,
    livemode: null,
    scopes: PORTAL_USER_SCOPES,
    grantId: null,
    authTime: who.authTime,
  });

  /** True when the sign-in may do `capability`; a stale one for export or erasure signs in again (max_age) and comes back to `returnTo`. */
  function authorized(req: Request, res: Response, who: SignedIn, capability: UserCapability, returnTo: string): boolean {
    try {
      d.policy.authorize(actorOf(who), capability);
      return true;
    } catch (err) {
      if (err instanceof UserTokenRefusal && err.code === 'reauthentication_required') {
        d.session.signInThen(res, { returnTo, locale: pageOf(req).locale, maxAge: d.policy.reauthenticationWindowSeconds });
        return false;
      }
      throw err;
    }
  }

  /** Text a person typed meets the API's input limits (no NUL, no unpaired surrogate): false when it does not. */
  function acceptable(body: unknown): boolean {
    try {
      assertAcceptableInput({ body });
      return true;
    } catch (err) {
      if (err instanceof DomainError) return false;
      throw err;
    }
  }

  const formsOf = (who: SignedIn) => ({
    restrict: d.session.formToken(who, 'portal:restrict'),
    lift: d.session.formToken(who, 'portal:lift'),
    object: d.session.formToken(who, 'portal:object'),
    biometrics: d.session.formToken(who, 'portal:biometrics'),
    signOut: d.session.formToken(who, 'portal:sign-out'),
    revoke: d.session.formToken(who, 'portal:revoke'),
  });
  const done = (res: Response, notice: Notice) => res.redirect(303, `${ACCOUNT_PAGES_PATH}?done=${notice}`);

  router.get(
    '/',
    wrap(async (req, res) => {
      const who = await signedIn(req, res, ACCOUNT_PAGES_PATH);
      if (!who) return;
      const p = pageOf(req);
      const [user, profile, verifications, apps, requests] = await Promise.all([
        d.users.findById(who.userId),
        d.rights.profiles.profile(who.userId),
        d.verifications.list(who.userId),
        d.apps.list(who.userId),
        d.dsrJobs.list({ userId: who.userId, first: 200 }),
      ]);
      const notice = typeof req.query.done === 'string' && NOTICES.includes(req.query.done) ? (p.pm as Record<string, string>)[req.query.done] : null;
      res.type('html').send(overviewPage(p, { email: user?.email ?? '', profile, verifications, apps, requests, notice, forms: formsOf(who) }));
    }),
  );

  // The one-button rights: restriction and lifting it, objection, biometric purge.
  for (const [name, action] of Object.entries(ACTIONS)) {
    router.post(
      action.path,
      form,
      wrap(async (req, res) => {
        const who = await signedIn(req, res, ACCOUNT_PAGES_PATH);
        if (!who) return;
        if (!d.session.checkFormToken(who, `portal:${name}`, req.body?.form_token)) return void res.redirect(303, ACCOUNT_PAGES_PATH);
        if (!authorized(req, res, who, action.capability, ACCOUNT_PAGES_PATH)) return;
        try {
          await action.run(d.rights, who.userId);
        } catch (err) {
          if (!(err instanceof DomainError && err.code === 'not_found')) throw err;
          // The account was erased between the check above and the action (another tab, the same form sent
          // twice): as for any account that is gone, this sign-in ends and the browser is sent to sign in.
          d.session.signOut(res);
          d.session.signInThen(res, { returnTo: ACCOUNT_PAGES_PATH, locale: pageOf(req).locale });
          return;
        }
        done(res, action.notice);
      }),
    );
  }

  router.post(
    '/apps/revoke',
    form,
    wrap(async (req, res) => {
      const who = await signedIn(req, res, ACCOUNT_PAGES_PATH);
      if (!who) return;
      if (!d.session.checkFormToken(who, 'portal:revoke', req.body?.form_token) || typeof req.body?.client_id !== 'string') return void res.redirect(303, ACCOUNT_PAGES_PATH);
      // Another user's app, or one already removed: nothing to end, and the page says the same.
      await d.apps.revoke(who.userId, req.body.client_id);
      done(res, 'done_revoked');
    }),
  );

  router.post(
    '/sign-out',
    form,
    wrap(async (req, res) => {
      const who = d.session.who(req);
      if (who && d.session.checkFormToken(who, 'portal:sign-out', req.body?.form_token)) d.session.signOut(res);
      const p = pageOf(req);
      res.type('html').send(signedOutPage(p));
    }),
  );

  const profileOf = async (userId: string): Promise<ProfileForm> => {
    const pr = await d.rights.profiles.profile(userId);
    return { display_name: pr.display_name ?? '', handle: pr.handle ?? '', bio: pr.bio ?? '', public_links: pr.public_links.join('\n') };
  };
  router.get(
    '/profile',
    wrap(async (req, res) => {
      const who = await signedIn(req, res, `${ACCOUNT_PAGES_PATH}/profile`);
      if (!who) return;
      res.type('html').send(profilePage(pageOf(req), { values: await profileOf(who.userId), formToken: d.session.formToken(who, 'portal:profile'), error: null }));
    }),
  );
  router.post(
    '/profile',
    form,
    wrap(async (req, res) => {
      const who = await signedIn(req, res, `${ACCOUNT_PAGES_PATH}/profile`);
      if (!who) return;
      const p = pageOf(req);
      const formToken = d.session.formToken(who, 'portal:profile');
      const str = (k: string) => (typeof req.body?.[k] === 'string' ? (req.body[k] as string) : '');
      const values: ProfileForm = { display_name: str('display_name'), handle: str('handle'), bio: str('bio'), public_links: str('public_links') };
      const refuse = (error: string, field?: keyof ProfileForm) => void res.status(400).type('html').send(profilePage(p, { values, formToken, error, field }));
      if (!d.session.checkFormToken(who, 'portal:profile', req.body?.form_token)) return refuse(p.pm.formExpired);
      if (!authorized(req, res, who, 'write_profile', `${ACCOUNT_PAGES_PATH}/profile`)) return;
      if (!acceptable(values)) return refuse(p.pm.badText);
      const handle = values.handle.trim();
      try {
        await d.rights.profiles.update(who.userId, {
          display_name: values.display_name,
          handle: handle === '' ? null : handle,
          bio: values.bio,
          public_links: values.public_links
            .split(/\r?\n/)
            .map((l) => l.trim())
            .filter(Boolean),
        });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        const named = err instanceof FieldsError ? err.fields[0]?.field : undefined;
        const field = (['display_name', 'handle', 'bio', 'public_links'] as const).find((f) => f === named);
        if (err.code === 'invalid_state') return refuse(p.pm.handleTaken, 'handle');
        const message = { display_name: p.pm.badDisplayName, handle: p.pm.badHandle, bio: p.pm.badBio, public_links: p.pm.badLinks };
        return refuse(field ? message[field] : p.pm.tryLater, field);
      }
      done(res, 'done_profile');
    }),
  );

  const reviewPath = (id: string) => `${ACCOUNT_PAGES_PATH}/verifications/${id}/review`;
  async function showReview(req: Request, res: Response, who: SignedIn, o: { reason: string; error: string | null; status: number }): Promise<void> {
    const id = String(req.params.id);
    const found = SESSION_ID_PATTERN.test(id) ? await d.verifications.get(who.userId, id) : undefined;
    if (!found) return sendProblem(res, pageOf(req), 'not_found');
    res
      .status(o.status)
      .type('html')
      .send(reviewPage(pageOf(req), { sessionId: id, tenantName: found.tenantName, formToken: d.session.formToken(who, `portal:review:${id}`), reason: o.reason, error: o.error }));
  }
  router.get(
    '/verifications/:id/review',
    wrap(async (req, res) => {
      const who = await signedIn(req, res, reviewPath(String(req.params.id)));
      if (who) await showReview(req, res, who, { reason: '', error: null, status: 200 });
    }),
  );
  router.post(
    '/verifications/:id/review',
    form,
    wrap(async (req, res) => {
      const id = String(req.params.id);
      const who = await signedIn(req, res, reviewPath(id));
      if (!who) return;
      const p = pageOf(req);
      const reason = typeof req.body?.reason === 'string' ? (req.body.reason as string) : '';
      if (!d.session.checkFormToken(who, `portal:review:${id}`, req.body?.form_token)) return showReview(req, res, who, { reason, error: p.pm.formExpired, status: 400 });
      if (!authorized(req, res, who, 'request_review', reviewPath(id))) return;
      if (!acceptable({ reason })) return showReview(req, res, who, { reason, error: p.pm.badText, status: 400 });
      try {
        // The portal reaches every tenant's verification of the user (no tenant slice).
        await d.rights.reviews.open(who.userId, id, reason, null);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        if (err.code === 'not_found') return sendProblem(res, p, 'not_found');
        return showReview(req, res, who, { reason, error: err.code === 'invalid_state' ? p.pm.reviewNotDecided : p.pm.badReason, status: 400 });
      }
      done(res, 'done_review');
    }),
  );

  /**
   * A right that asks first (export, erasure): the GET shows its page with the button, the POST checks
   * the form token (an expired one shows the page again) and the sign-in's age, then acts.
   */
  function confirmedRoutes(name: 'export' | 'delete', capability: UserCapability, confirmPage: typeof exportPage, act: (who: SignedIn, p: PortalPage, res: Response) => Promise<void>): void {
    const path = `${ACCOUNT_PAGES_PATH}/${name}`;
    const formName = `portal:${name}`;
    router.get(
      `/${name}`,
      wrap(async (req, res) => {
        const who = await signedIn(req, res, path);
        if (!who || !authorized(req, res, who, capability, path)) return;
        res.type('html').send(confirmPage(pageOf(req), { formToken: d.session.formToken(who, formName), error: null }));
      }),
    );
    router.post(
      `/${name}`,
      form,
      wrap(async (req, res) => {
        const who = await signedIn(req, res, path);
        if (!who) return;
        const p = pageOf(req);
        if (!d.session.checkFormToken(who, formName, req.body?.form_token))
          return void res.status(400).type('html').send(confirmPage(p, { formToken: d.session.formToken(who, formName), error: p.pm.formExpired }));
        if (!authorized(req, res, who, capability, path)) return;
        await act(who, p, res);
      }),
    );
  }

  confirmedRoutes('export', 'export', exportPage, async (who, _p, res) => {
    await d.exports.request(who.userId);
    done(res, 'done_export');
  });
  router.get(
    '/exports/:id',
    wrap(async (req, res) => {
      const here = `${ACCOUNT_PAGES_PATH}/exports/${encodeURIComponent(String(req.params.id))}`;
      const who = await signedIn(req, res, here);
      // The key that opens the documents is part of the export: a recent sign-in, like asking for it.
      if (!who || !authorized(req, res, who, 'export', here)) return;
      let shown: Awaited<ReturnType<DataExportService['portalDownload']>>;
      try {
        shown = await d.exports.portalDownload(who.userId, String(req.params.id));
      } catch (err) {
        if (err instanceof DomainError && err.code === 'not_found') return sendProblem(res, pageOf(req), 'not_found');
        throw err;
      }
      res
        .type('html')
        .send(downloadPage(pageOf(req), { url: shown.delivery.download_url, expiresAt: shown.delivery.download_expires_at, key: shown.delivery.document_key, keyShownAt: shown.keyShownAt }));
    }),
  );

  confirmedRoutes('delete', 'erasure', deletePage, async (who, p, res) => {
    const job = await d.rights.erasure.requestDeletion(who.userId);
    d.session.signOut(res);
    // The date the erasure service set; the page does not compute it again.
    res.type('html').send(deletedPage(p, { purgeAfter: new Date(String(job.details.purge_after)) }));
  });
}
