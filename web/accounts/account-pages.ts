import { escapeHtml } from '../../http/html';
import { fill } from '../i18n';
import type { AccountLocale, AccountMessages } from './account-messages';

/** `firstParty`: the service's own account pages signing in (src/oidc/first-party-sign-in.ts), not a tenant's app. */
export type Page = { locale: AccountLocale; m: AccountMessages; client: string; title: string; firstParty?: boolean };
type Field = { name: string; label: string; type: string; autocomplete: string; value?: string; hint?: string; inputmode?: string };

/**
 * The account pages of the sign-in interaction (docs/accounts-and-oidc.md, "Sign-in pages"):
 * server-rendered forms with no script, in the hosted page's style (/hosted/assets/app.css plus
 * /accounts/accounts.css), each field with a visible label and an error summary on failure.
 */
export function shell(p: Page, body: string): string {
  return `<!doctype html><html lang="${p.locale}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(p.title)}</title>
<link rel="stylesheet" href="/hosted/assets/app.css"><link rel="stylesheet" href="/accounts/accounts.css"></head>
<body><a class="skip-link" href="#main">Skip to main content</a>
<header class="brand"><p class="brand__name">${escapeHtml(p.client)}</p></header>
<main id="main" tabindex="-1">${body}</main></body></html>`;
}

function errorSummary(m: AccountMessages, error: string | null, firstField: string): string {
  if (!error) return '';
  return `<div class="error-summary" role="alert" tabindex="-1"><h2 class="error-summary__title">${escapeHtml(m.errorSummary)}</h2>
<p><a href="#${firstField}">${escapeHtml(error)}</a></p></div>`;
}

function field(f: Field, invalid: boolean): string {
  const hint = f.hint ? `<p class="hint" id="${f.name}-hint">${escapeHtml(f.hint)}</p>` : '';
  const described = f.hint ? ` aria-describedby="${f.name}-hint"` : '';
  return `<div class="field"><label class="label" for="${f.name}">${escapeHtml(f.label)}</label>${hint}
<input class="text-input" id="${f.name}" name="${f.name}" type="${f.type}" autocomplete="${f.autocomplete}"${f.inputmode ? ` inputmode="${f.inputmode}"` : ''}${described}${
    invalid ? ' aria-invalid="true"' : ''
  } value="${escapeHtml(f.value ?? '')}" required></div>`;
}

export function signInPage(p: Omit<Page, 'title'>, o: { action: string; signUpHref: string; email?: string; error: string | null }): string {
  const { m } = p;
  return shell(
    { ...p, title: `${m.signInTitle} - ${p.client}` },
    `${errorSummary(m, o.error, 'email')}<h1>${escapeHtml(m.signInTitle)}</h1><p>${escapeHtml(fill(p.firstParty ? m.signInLeadAccount : m.signInLead, { client: p.client }))}</p>
<form method="post" action="${escapeHtml(o.action)}" novalidate>
${field({ name: 'email', label: m.email, type: 'email', autocomplete: 'email', value: o.email }, Boolean(o.error))}
${field({ name: 'password', label: m.password, type: 'password', autocomplete: 'current-password' }, Boolean(o.error))}
<div class="actions"><button class="button button--primary" type="submit">${escapeHtml(m.signIn)}</button></div></form>
<p>${escapeHtml(m.noAccount)} <a href="${escapeHtml(o.signUpHref)}">${escapeHtml(m.createAccount)}</a></p>`,
  );
}

/** `errorField`: the field the error summary links to (the email unless the password was refused). */
export function signUpPage(p: Omit<Page, 'title'>, o: { action: string; signInHref: string; email?: string; error: string | null; errorField?: 'email' | 'password' }): string {
  const { m } = p;
  return shell(
    { ...p, title: `${m.signUpTitle} - ${p.client}` },
    `${errorSummary(m, o.error, o.errorField ?? 'email')}<h1>${escapeHtml(m.signUpTitle)}</h1><p>${escapeHtml(fill(p.firstParty ? m.signUpLeadAccount : m.signUpLead, { client: p.client }))}</p>
<form method="post" action="${escapeHtml(o.action)}" novalidate>
${field({ name: 'email', label: m.email, type: 'email', autocomplete: 'email', value: o.email }, Boolean(o.error))}
${field({ name: 'password', label: m.password, type: 'password', autocomplete: 'new-password' }, Boolean(o.error))}
<div class="actions"><button class="button button--primary" type="submit">${escapeHtml(m.continue)}</button></div></form>
<p>${escapeHtml(m.haveAccount)} <a href="${escapeHtml(o.signInHref)}">${escapeHtml(m.signIn)}</a></p>`,
  );
}

/** `throttled`: sign-in asked for a code past the failure threshold (the code came only if the password was right). */
export function codePage(p: Omit<Page, 'title'>, o: { action: string; email: string; error: string | null; throttled?: boolean }): string {
  const { m } = p;
  return shell(
    { ...p, title: `${m.codeTitle} - ${p.client}` },
    `${errorSummary(m, o.error, 'code')}<h1>${escapeHtml(m.codeTitle)}</h1><p>${escapeHtml(fill(o.throttled ? m.codeLeadThrottled : m.codeLead, { email: o.email }))}</p>
<form method="post" action="${escapeHtml(o.action)}" novalidate>
<input type="hidden" name="email" value="${escapeHtml(o.email)}">
${field({ name: 'code', label: m.code, type: 'text', autocomplete: 'one-time-code', inputmode: 'numeric', hint: m.codeHint }, Boolean(o.error))}
<div class="actions"><button class="button button--primary" type="submit">${escapeHtml(m.continue)}</button></div></form>`,
  );
}

export function consentPage(p: Omit<Page, 'title'>, o: { action: string; abortHref: string; scopes: string[] }): string {
  const { m } = p;
  const items = o.scopes
    .map((s) => (m as Record<string, string>)[`scope_${s}`])
    .filter(Boolean)
    .map((text) => `<li>${escapeHtml(fill(text, { client: p.client }))}</li>`)
    .join('');
  return shell(
    { ...p, title: `${fill(m.consentTitle, { client: p.client })}` },
    `<h1>${escapeHtml(fill(m.consentTitle, { client: p.client }))}</h1><p>${escapeHtml(fill(m.consentLead, { client: p.client }))}</p>
<ul class="list">${items}</ul>
<form method="post" action="${escapeHtml(o.action)}"><div class="actions">
<button class="button button--primary" type="submit">${escapeHtml(m.allow)}</button>
<a class="button button--secondary" href="${escapeHtml(o.abortHref)}">${escapeHtml(m.deny)}</a></div></form>`,
  );
}

/** Codes of the account pages' refusals, shown on the page: stable, so support and tests can name them. */
export type AccountProblem =
  | 'link_invalid'
  | 'not_finished'
  | 'kept_by_another_account'
  | 'user_restricted'
  | 'sign_in_expired'
  | 'sign_in_cancelled'
  | 'sign_in_failed'
  | 'wrong_account'
  | 'not_found'
  | 'invalid_request';

/** A refusal of the account pages: what happened in words, its code, and the one way on when there is one. */
export function problemPage(p: Omit<Page, 'title'>, o: { code: AccountProblem; signInAgainHref?: string }): string {
  const { m } = p;
  const again = o.signInAgainHref ? `<div class="actions"><a class="button button--primary" href="${escapeHtml(o.signInAgainHref)}">${escapeHtml(m.signInAnother)}</a></div>` : '';
  return shell(
    { ...p, title: `${m.problemTitle} - ${p.client}` },
    `<h1>${escapeHtml(m.problemTitle)}</h1><p>${escapeHtml(m[`problem_${o.code}`])}</p>
<p class="hint" id="problem-code" data-code="${o.code}">${escapeHtml(fill(m.problemCode, { code: o.code }))}</p>${again}`,
  );
}
