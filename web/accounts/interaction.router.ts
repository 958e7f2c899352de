import { Router, type NextFunction, type Request, type Response } from 'express';
import { pageForm, pageInputGuard } from '../page-input';
import type Provider from 'oidc-provider';
import type { OidcClients } from '../../src/oidc/oidc-clients';
import { CONSOLE_CLIENT_ID, FIRST_PARTY_CLIENT_ID } from '../../src/oidc/first-party-sign-in';
import type { SignInService, MailText } from '../../src/users/sign-in.service';
import { setPageSecurityHeaders } from '../../http/security-headers';
import { fill } from '../i18n';
import { accountLocale, messagesFor, type AccountMessages } from './account-messages';
import { codePage, consentPage, signInPage, signUpPage } from './account-pages';
import { wrap } from './wrap';

const mailText = (m: AccountMessages): MailText => ({ codeSubject: m.mailCodeSubject, codeText: m.mailCodeText, existsSubject: m.mailExistsSubject, existsText: m.mailExistsText });

/**
 * The sign-in interaction's pages, under the provider's mount so its interaction cookie reaches
 * them (docs/accounts-and-oidc.md, "Sign-in pages"). Forms post urlencoded bodies, parsed here only:
 * the provider itself must see unparsed requests.
 */
export function interactionRouter(provider: Provider, signIn: SignInService, clients: OidcClients, base: string): Router {
  const router = Router();
  // Input refused as /v1 refuses it (web/page-input.ts): a page of its own, as the provider's details may not be readable yet.
  const refuseSignInInput = (req: Request, res: Response) => {
    const m = messagesFor(accountLocale(undefined, (l) => req.acceptsLanguages(l)));
    html(res, 400, `<!doctype html><html lang="en-US"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${m.signInTitle}</title><link rel="stylesheet" href="/hosted/assets/app.css"></head><body><main id="main"><h1>${m.signInTitle}</h1><p id="problem-code" data-code="invalid_request">${m.problem_invalid_request}</p></main></body></html>`);
  };
  // The password's own check answers on the form, in the page's language (a NUL: "a character that cannot be used").
  const form = pageForm('8kb', refuseSignInInput, ['password']);
  router.use((_req, res, next) => {
    setPageSecurityHeaders(res);
    res.setHeader('cache-control', 'no-store');
    next();
  });
  router.use(pageInputGuard(refuseSignInInput));

  const context = async (req: Request, res: Response) => {
    const details = await provider.interactionDetails(req, res);
    const clientId = String(details.params.client_id ?? '');
    const locale = accountLocale(typeof details.params.ui_locales === 'string' ? details.params.ui_locales : undefined, (l) => req.acceptsLanguages(l));
    const m = messagesFor(locale);
    const firstParty = clientId === FIRST_PARTY_CLIENT_ID;
    const client = firstParty ? m.accountName : clientId === CONSOLE_CLIENT_ID ? m.consoleName : ((await clients.tenantNameOf(clientId)) ?? clientId);
    const at = `${base}/${details.uid}`;
    // The last redirect of the flow leaves for the app's redirect_uri, which form-action must allow.
    setPageSecurityHeaders(res, { formActionOrigins: originOf(details.params.redirect_uri) });
    return { details, locale, m, client, at, firstParty };
  };
  const html = (res: Response, status: number, body: string) => void res.status(status).type('html').send(body);

  router.get('/:uid', wrap(async (req, res) => {
    const c = await context(req, res);
    if (c.details.prompt.name === 'login') return html(res, 200, signInPage(c, { action: `${c.at}/login`, signUpHref: `${c.at}/signup`, error: null }));
    const scopes = String(c.details.params.scope ?? '').split(' ').filter(Boolean);
    return html(res, 200, consentPage(c, { action: `${c.at}/consent`, abortHref: `${c.at}/abort`, scopes }));
  }));

  router.post('/:uid/login', form, wrap(async (req, res) => {
    const c = await context(req, res);
    const email = String(req.body?.email ?? '');
    const outcome = await signIn.signIn(email, String(req.body?.password ?? ''), req.ip ?? 'unknown', mailText(c.m));
    if (outcome.kind === 'refused') return html(res, 400, signInPage(c, { action: `${c.at}/login`, signUpHref: `${c.at}/signup`, email, error: c.m.badCredentials }));
    if (outcome.kind === 'code_sent') return html(res, 200, codePage(c, { action: `${c.at}/code`, email: outcome.email, error: null }));
    if (outcome.kind === 'code_required') return html(res, 200, codePage(c, { action: `${c.at}/code`, email: outcome.email, error: null, throttled: true }));
    await provider.interactionFinished(req, res, { login: { accountId: outcome.user.id } }, { mergeWithLastSubmission: false });
  }));

  router.get('/:uid/signup', wrap(async (req, res) => {
    const c = await context(req, res);
    html(res, 200, signUpPage(c, { action: `${c.at}/signup`, signInHref: c.at, error: null }));
  }));

  router.post('/:uid/signup', form, wrap(async (req, res) => {
    const c = await context(req, res);
    const email = String(req.body?.email ?? '');
    const outcome = await signIn.signUp(email, String(req.body?.password ?? ''), mailText(c.m));
    if (outcome.kind === 'invalid') {
      const error = { email: c.m.badSignUp, length: c.m.badPasswordLength, common: c.m.badPasswordCommon, characters: c.m.badPasswordCharacters }[outcome.problem];
      return html(res, 400, signUpPage(c, { action: `${c.at}/signup`, signInHref: c.at, email, error, errorField: outcome.problem === 'email' ? 'email' : 'password' }));
    }
    html(res, 200, codePage(c, { action: `${c.at}/code`, email: outcome.email, error: null }));
  }));

  router.post('/:uid/code', form, wrap(async (req, res) => {
    const c = await context(req, res);
    const email = String(req.body?.email ?? '');
    const user = await signIn.confirmCode(email, String(req.body?.code ?? ''));
    if (!user) return html(res, 400, codePage(c, { action: `${c.at}/code`, email, error: c.m.badCode }));
    await provider.interactionFinished(req, res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
  }));

  router.post('/:uid/consent', form, wrap(async (req, res) => {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params, session } = details;
    if (prompt.name !== 'consent' || !session) return void res.redirect(303, `${base}/${details.uid}`);
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: session.accountId, clientId: String(params.client_id) });
    if (!grant) return void res.redirect(303, `${base}/${details.uid}`);
    const d = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
    if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
    if (d.missingResourceScopes) for (const [indicator, scopes] of Object.entries(d.missingResourceScopes)) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }));

  router.get('/:uid/abort', wrap(async (req, res) => {
    await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user did not allow it' }, { mergeWithLastSubmission: false });
  }));

  // An expired or unknown interaction (SessionNotFound) is a page, not a 500.
  router.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (err && typeof err === 'object' && 'name' in err && (err as { name: string }).name === 'SessionNotFound') {
      const m = messagesFor(accountLocale(undefined, (l) => req.acceptsLanguages(l)));
      return html(res, 400, `<!doctype html><html lang="en-US"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${m.signInTitle}</title><link rel="stylesheet" href="/hosted/assets/app.css"></head><body><main id="main"><h1>${m.signInTitle}</h1><p>${fill(m.badCode, {})}</p></main></body></html>`);
    }
    next(err);
  });
  return router;
}

function originOf(uri: unknown): string[] {
  try {
    return typeof uri === 'string' ? [new URL(uri).origin] : [];
  } catch {
    return [];
  }
}
