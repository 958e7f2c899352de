import type { Request, Response } from 'express';
import { escapeHtml } from '../../http/html';
import { accountLocale, type AccountLocale } from '../accounts/account-messages';
import { fill } from '../i18n';
import type { ConsoleMember } from '../../src/members/member';
import { CONSOLE_PATH } from '../../src/oidc/first-party-sign-in';
import { consoleMessagesFor, roleName, type ConsoleMessages } from './console-messages';

/** Which nav entry a page belongs to (the shell marks it `aria-current`). */
export type ConsoleNav = 'queue' | 'members' | 'settings';

/** What the shell shows around every page: set by the guard (web/console/console-guard.ts) on res.locals.consoleChrome. */
export type ConsoleChrome = {
  locale: AccountLocale;
  m: ConsoleMessages;
  tenantName: string | null;
  member: ConsoleMember | null;
  /** The sign-out form's token; null when no one is signed in. */
  signOutToken: string | null;
  /** A member of several tenants gets a "Switch tenant" link. */
  canSwitchTenant: boolean;
};

export type ConsolePageInput = {
  title: string;
  body: string;
  active?: ConsoleNav;
  /** Loads /console/assets/console.js (passkeys). */
  script?: boolean;
};

const esc = escapeHtml;

/** The language of a console page: `?lang=` first, then Accept-Language, then en-US. */
export function consoleLocaleOf(req: Request): AccountLocale {
  return accountLocale(typeof req.query.lang === 'string' ? req.query.lang : undefined, (l) => req.acceptsLanguages(l));
}

/** A chrome for pages outside a signed-in console (sign-in problems, invitations). */
export function anonymousChrome(req: Request): ConsoleChrome {
  const locale = consoleLocaleOf(req);
  return { locale, m: consoleMessagesFor(locale), tenantName: null, member: null, signOutToken: null, canSwitchTenant: false };
}

export function chromeOf(req: Request, res: Response): ConsoleChrome {
  return (res.locals.consoleChrome as ConsoleChrome | undefined) ?? anonymousChrome(req);
}

/**
 * The console's page shell (docs/console.md): the hosted page's and account pages' style, a header
 * with the tenant's name and the signed-in member, the nav (Queue, Members, Settings) and a sign-out
 * button. No script unless the page asks for the passkey script.
 */
export function consoleLayout(c: ConsoleChrome, o: ConsolePageInput): string {
  const { m } = c;
  const nav = (key: ConsoleNav, label: string, href: string) =>
    `<li><a class="console-nav__link" href="${href}"${o.active === key ? ' aria-current="page"' : ''}>${esc(label)}</a></li>`;
  const signedIn = c.member
    ? `<nav class="console-nav" aria-label="${esc(m.navLabel)}"><ul class="console-nav__list">
${nav('queue', m.navQueue, `${CONSOLE_PATH}/queue`)}${nav('members', m.navMembers, `${CONSOLE_PATH}/members`)}${nav('settings', m.navSettings, `${CONSOLE_PATH}/settings`)}</ul></nav>
<div class="console-user"><p class="console-user__who">${esc(fill(m.signedInAs, { email: c.member.email, role: roleName(m, c.member.role) }))}</p>
${c.canSwitchTenant ? `<a class="console-user__switch" href="${CONSOLE_PATH}/tenants">${esc(m.switchTenant)}</a>` : ''}
${c.signOutToken ? `<form method="post" action="${CONSOLE_PATH}/sign-out"><input type="hidden" name="form_token" value="${esc(c.signOutToken)}"><button class="button button--secondary console-user__sign-out" type="submit">${esc(m.signOut)}</button></form>` : ''}</div>`
    : '';
  const brand = c.tenantName ? `${c.tenantName} · ${m.consoleName}` : m.consoleName;
  return `<!doctype html><html lang="${c.locale}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(o.title)} - ${esc(brand)}</title>
<link rel="stylesheet" href="/hosted/assets/app.css"><link rel="stylesheet" href="/accounts/accounts.css"><link rel="stylesheet" href="${CONSOLE_PATH}/assets/console.css">
${o.script ? `<script src="${CONSOLE_PATH}/assets/console.js" defer></script>` : ''}</head>
<body class="console"><a class="skip-link" href="#main">${esc(m.skip)}</a>
<header class="brand console-header"><p class="brand__name">${esc(brand)}</p>${signedIn}</header>
<main id="main" class="console-main" tabindex="-1">${o.body}</main></body></html>`;
}

/** Answers with a console page in the shell of the signed-in member (or the anonymous one). */
export function sendConsolePage(req: Request, res: Response, o: ConsolePageInput & { status?: number }): void {
  res.status(o.status ?? 200).type('html').send(consoleLayout(chromeOf(req, res), o));
}

/** An error summary at the top of a form, linking to the field at fault (GOV.UK pattern). */
export function errorSummary(m: ConsoleMessages, error: string | null, field?: string): string {
  if (!error) return '';
  return `<div class="error-summary" role="alert" tabindex="-1"><h2 class="error-summary__title">${esc(m.errorSummary)}</h2><p>${field ? `<a href="#${field}">${esc(error)}</a>` : esc(error)}</p></div>`;
}
