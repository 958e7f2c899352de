import { REVIEWABLE_STATUSES } from '../../src/data-rights/review-case.service';
import { escapeHtml } from '../../http/html';
import type { ConnectedApp } from '../../src/oidc/connected-apps.service';
import type { UserVerification } from '../../src/users/user-verifications.service';
import type { Profile } from '../../src/users/profile';
import type { DsrJob } from '../../src/data-rights/dsr-job.service';
import { fill } from '../i18n';
import { shell, type Page } from './account-pages';
import type { PortalMessages } from './portal-messages';

/** A portal page: the account pages' page plus the portal's words. */
export type PortalPage = Omit<Page, 'title'> & { pm: PortalMessages };

/** Where each form of the portal posts, and the anti-forgery token of each (bound to the sign-in and the action). */
export type PortalForms = Record<'restrict' | 'lift' | 'object' | 'biometrics' | 'signOut' | 'revoke', string>;

const esc = escapeHtml;
const dateOf = (p: PortalPage, d: Date | null): string => (d ? new Intl.DateTimeFormat(p.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(d) : '');
const word = (pm: PortalMessages, key: string, fallback: string): string => (pm as Record<string, string>)[key] ?? fallback;

function page(p: PortalPage, title: string, body: string): string {
  return shell({ ...p, title: `${title} - ${p.client}` }, body);
}

/** A POST form of one button (and its hidden fields), with the form token. */
function buttonForm(action: string, formToken: string, label: string, o: { secondary?: boolean; warning?: boolean; hidden?: Record<string, string> } = {}): string {
  const hidden = Object.entries(o.hidden ?? {})
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  return `<form method="post" action="${esc(action)}"><input type="hidden" name="form_token" value="${esc(formToken)}">${hidden}<button class="button ${o.warning ? 'button--warning' : o.secondary ? 'button--secondary' : 'button--primary'}" type="submit">${esc(label)}</button></form>`;
}

function errorSummary(p: PortalPage, error: string | null, field?: string): string {
  if (!error) return '';
  const text = field ? `<a href="#${field}">${esc(error)}</a>` : esc(error);
  return `<div class="error-summary" role="alert" tabindex="-1"><h2 class="error-summary__title">${esc(p.m.errorSummary)}</h2><p>${text}</p></div>`;
}

function summaryRow(label: string, value: string | null, notSet: string): string {
  return `<div class="summary__row"><dt>${esc(label)}</dt><dd>${value ? esc(value) : `<span class="hint">${esc(notSet)}</span>`}</dd></div>`;
}

export type Overview = {
  email: string;
  profile: Profile;
  verifications: UserVerification[];
  apps: ConnectedApp[];
  requests: DsrJob[];
  notice: string | null;
  forms: PortalForms;
};

/**
 * The portal's one page (D20, docs/accounts-and-oidc.md, "The account portal"): the profile, the
 * verifications at every tenant, the connected apps (each with its own Remove form), the requests
 * with their deadlines, and one section per right. No script: every action is a form.
 */
export function overviewPage(p: PortalPage, o: Overview): string {
  const { pm } = p;
  const pr = o.profile;
  const restricted = pr.state === 'restricted';
  const objection = pr.objections.find((x) => x.processing === 'feed_ranking');
  const notice = o.notice ? `<div class="notice" role="status"><p>${esc(o.notice)}</p></div>` : '';

  const profile = `<section aria-labelledby="profile-h"><h2 id="profile-h">${esc(pm.profileHeading)}</h2><dl class="summary">
${summaryRow(pm.displayName, pr.display_name, pm.notSet)}${summaryRow(pm.handle, pr.handle, pm.notSet)}${summaryRow(pm.bio, pr.bio, pm.notSet)}${summaryRow(pm.publicLinks, pr.public_links.join(', ') || null, pm.notSet)}
${summaryRow(pm.legalName, pr.legal_name, pm.notSet)}${summaryRow(pm.dateOfBirth, pr.date_of_birth, pm.notSet)}${summaryRow(pm.nationality, pr.nationality, pm.notSet)}</dl>
<p class="hint">${esc(pm.verifiedHint)}</p><p><a href="/account/profile">${esc(pm.editProfile)}</a></p></section>`;

  const verifications = o.verifications.length
    ? `<ul class="cards">${o.verifications
        .map((v) => {
          const decided = REVIEWABLE_STATUSES.includes(v.status);
          return `<li class="card"><h3 class="card__title">${esc(v.tenantName)}${v.livemode ? '' : ` <span class="hint">${esc(pm.testMode)}</span>`}</h3><dl class="summary">
${summaryRow(pm.colStatus, word(pm, `status_${v.status}`, v.status), pm.notSet)}${summaryRow(pm.colLevel, v.tier, pm.notSet)}${summaryRow(pm.colDate, dateOf(p, v.completedAt ?? v.createdAt), pm.notSet)}</dl>
${decided ? `<p><a href="/account/verifications/${esc(v.id)}/review">${esc(fill(pm.askReview, { app: v.tenantName }))}</a></p>` : ''}</li>`;
        })
        .join('')}</ul>`
    : `<p>${esc(pm.verificationsNone)}</p>`;

  const apps = o.apps.length
    ? `<p>${esc(pm.appsLead)}</p><ul class="cards">${o.apps
        .map(
          (a) => `<li class="card"><h3 class="card__title">${esc(a.tenantName)}${a.livemode ? '' : ` <span class="hint">${esc(pm.testMode)}</span>`}</h3>
<p>${esc(fill(pm.appMayDo, { app: a.tenantName }))}:</p><ul class="list">${a.scopes
            .map((s) => word(pm, `scope_${s}`, ''))
            .filter(Boolean)
            .map((t) => `<li>${esc(t)}</li>`)
            .join('')}</ul>
<div class="actions">${buttonForm('/account/apps/revoke', o.forms.revoke, fill(pm.revokeApp, { app: a.tenantName }), { secondary: true, hidden: { client_id: a.clientId } })}</div></li>`,
        )
        .join('')}</ul>`
    : `<p>${esc(pm.appsNone)}</p>`;

  const requests = o.requests.length
    ? `<ul class="cards">${o.requests
        .map((j) => {
          const download = j.kind === 'export' && j.status === 'completed' ? `<p><a href="/account/exports/${esc(j.id)}">${esc(pm.download)}</a></p>` : '';
          return `<li class="card"><h3 class="card__title">${esc(word(pm, `kind_${j.kind}`, j.kind))}</h3><dl class="summary">
${summaryRow(pm.colStatus, word(pm, `dsr_${j.status}`, j.status), pm.notSet)}${summaryRow(pm.colReceived, dateOf(p, j.receivedAt), pm.notSet)}${summaryRow(pm.colDeadline, dateOf(p, j.expectedBy), pm.notSet)}${
            j.completedAt ? summaryRow(pm.colCompleted, dateOf(p, j.completedAt), pm.notSet) : ''
          }${reviewOutcome(pm, j)}</dl>${download}</li>`;
        })
        .join('')}</ul>`
    : `<p>${esc(pm.requestsNone)}</p>`;

  const restriction = restricted
    ? `<h3>${esc(pm.liftTitle)}</h3><p>${esc(pm.liftLead)}</p><div class="actions">${buttonForm('/account/restrict/lift', o.forms.lift, pm.lift)}</div>`
    : `<h3>${esc(pm.restrictTitle)}</h3><p>${esc(pm.restrictLead)}</p><div class="actions">${buttonForm('/account/restrict', o.forms.restrict, pm.restrict, { secondary: true })}</div>`;
  const objecting = objection
    ? `<h3>${esc(pm.objectTitle)}</h3><p>${esc(fill(pm.objected, { date: dateOf(p, new Date(objection.objected_at)) }))}</p>`
    : `<h3>${esc(pm.objectTitle)}</h3><p>${esc(pm.objectLead)}</p><div class="actions">${buttonForm('/account/object', o.forms.object, pm.object, { secondary: true })}</div>`;

  const rights = `<section aria-labelledby="rights-h"><h2 id="rights-h">${esc(pm.rightsHeading)}</h2>
<h3>${esc(pm.exportTitle)}</h3><p>${esc(pm.exportLead)}</p><p><a href="/account/export">${esc(pm.requestExport)}</a></p>
${restriction}${objecting}
<h3>${esc(pm.biometricsTitle)}</h3><p>${esc(pm.biometricsLead)}</p><div class="actions">${buttonForm('/account/biometrics/delete', o.forms.biometrics, pm.purgeBiometrics, { secondary: true })}</div>
<h3>${esc(pm.deleteTitle)}</h3><p>${esc(pm.deleteLead)}</p><p>${esc(pm.deleteWindow)}</p><p><a href="/account/delete">${esc(pm.deleteLink)}</a></p></section>`;

  return page(
    p,
    pm.portalTitle,
    `${notice}<h1>${esc(pm.portalTitle)}</h1><p>${esc(fill(pm.signedInAs, { email: o.email }))}</p>
${profile}
<section aria-labelledby="verifications-h"><h2 id="verifications-h">${esc(pm.verificationsHeading)}</h2>${verifications}</section>
<section aria-labelledby="apps-h"><h2 id="apps-h">${esc(pm.appsHeading)}</h2>${apps}</section>
<section aria-labelledby="requests-h"><h2 id="requests-h">${esc(pm.requestsHeading)}</h2>${requests}</section>
${rights}
<div class="actions">${buttonForm('/account/sign-out', o.forms.signOut, pm.signOut, { secondary: true })}</div>`,
  );
}

export type ProfileForm = { display_name: string; handle: string; bio: string; public_links: string };

/** The self-managed fields of PATCH /v1/me/profile as a form; `field`: the one the error is about. */
export function profilePage(p: PortalPage, o: { values: ProfileForm; formToken: string; error: string | null; field?: keyof ProfileForm }): string {
  const { pm } = p;
  const input = (name: keyof ProfileForm, label: string, o2: { hint?: string; autocomplete: string; textarea?: boolean }) => {
    const invalid = o.field === name ? ' aria-invalid="true"' : '';
    const described = o2.hint ? ` aria-describedby="${name}-hint"` : '';
    const hint = o2.hint ? `<p class="hint" id="${name}-hint">${esc(o2.hint)}</p>` : '';
    const control = o2.textarea
      ? `<textarea class="text-input" id="${name}" name="${name}" rows="4" autocomplete="${o2.autocomplete}"${described}${invalid}>${esc(o.values[name])}</textarea>`
      : `<input class="text-input" id="${name}" name="${name}" type="text" autocomplete="${o2.autocomplete}"${described}${invalid} value="${esc(o.values[name])}">`;
    return `<div class="field"><label class="label" for="${name}">${esc(label)}</label>${hint}${control}</div>`;
  };
  return page(
    p,
    pm.editProfile,
    `${errorSummary(p, o.error, o.field)}<h1>${esc(pm.editProfile)}</h1>
<form method="post" action="/account/profile" novalidate><input type="hidden" name="form_token" value="${esc(o.formToken)}">
${input('display_name', pm.displayName, { autocomplete: 'nickname' })}
${input('handle', pm.handle, { hint: pm.handleHint, autocomplete: 'username' })}
${input('bio', pm.bio, { autocomplete: 'off', textarea: true })}
${input('public_links', pm.publicLinks, { hint: pm.publicLinksHint, autocomplete: 'url', textarea: true })}
<div class="actions"><button class="button button--primary" type="submit">${esc(pm.saveProfile)}</button><a class="button button--secondary" href="/account">${esc(pm.cancel)}</a></div></form>`,
  );
}

export function reviewPage(p: PortalPage, o: { sessionId: string; tenantName: string; formToken: string; reason: string; error: string | null }): string {
  const { pm } = p;
  return page(
    p,
    pm.reviewTitle,
    `${errorSummary(p, o.error, 'reason')}<h1>${esc(pm.reviewTitle)}</h1><p>${esc(fill(pm.reviewLead, { app: o.tenantName }))}</p>
<form method="post" action="/account/verifications/${esc(o.sessionId)}/review" novalidate><input type="hidden" name="form_token" value="${esc(o.formToken)}">
<div class="field"><label class="label" for="reason">${esc(pm.reviewReason)}</label><p class="hint" id="reason-hint">${esc(pm.reviewReasonHint)}</p>
<textarea class="text-input" id="reason" name="reason" rows="5" aria-describedby="reason-hint"${o.error ? ' aria-invalid="true"' : ''}>${esc(o.reason)}</textarea></div>
<div class="actions"><button class="button button--primary" type="submit">${esc(pm.sendReview)}</button><a class="button button--secondary" href="/account">${esc(pm.cancel)}</a></div></form>`,
  );
}

export function exportPage(p: PortalPage, o: { formToken: string; error: string | null }): string {
  const { pm } = p;
  return page(
    p,
    pm.exportTitle,
    `${errorSummary(p, o.error)}<h1>${esc(pm.exportTitle)}</h1><p>${esc(pm.exportLead)}</p><p class="hint">${esc(pm.exportFresh)}</p>
<div class="actions">${buttonForm('/account/export', o.formToken, pm.requestExport)}<a class="button button--secondary" href="/account">${esc(pm.cancel)}</a></div>`,
  );
}

/** A decided review request's outcome (D15): whether the decision stands or was changed. */
function reviewOutcome(pm: PortalMessages, j: DsrJob): string {
  const decision = j.kind === 'review' && j.status === 'completed' && typeof j.result?.decision === 'string' ? j.result.decision : null;
  return decision ? summaryRow(pm.colOutcome, word(pm, `review_${decision}`, decision), pm.notSet) : '';
}

/** The export's download: the link, and the document key the first time only (DataExportService.portalDownload). */
export function downloadPage(p: PortalPage, o: { url: string | null; expiresAt: string | null; key: string; keyShownAt: Date | null }): string {
  const { pm } = p;
  const body = !o.url
    ? `<p>${esc(pm.downloadNotReady)}</p>`
    : `<p><a class="button button--primary" href="${esc(o.url)}" download>${esc(pm.downloadLink)}</a></p><p>${esc(fill(pm.downloadUntil, { date: dateOf(p, o.expiresAt ? new Date(o.expiresAt) : null) }))}</p>
<h2>${esc(pm.keyHeading)}</h2>${
        o.key
          ? `<p>${esc(pm.keyLead)}</p><div class="field"><label class="label" for="document-key">${esc(pm.keyLabel)}</label><textarea class="text-input key" id="document-key" rows="2" readonly>${esc(o.key)}</textarea></div>`
          : `<p id="key-shown">${esc(fill(pm.keyShownBefore, { date: dateOf(p, o.keyShownAt) }))}</p>`
      }`;
  return page(p, pm.downloadTitle, `<h1>${esc(pm.downloadTitle)}</h1>${body}<p><a href="/account">${esc(pm.back)}</a></p>`);
}

export function deletePage(p: PortalPage, o: { formToken: string; error: string | null }): string {
  const { pm } = p;
  return page(
    p,
    pm.deleteTitle,
    `${errorSummary(p, o.error)}<h1>${esc(pm.deleteTitle)}</h1><p>${esc(pm.deleteLead)}</p><p>${esc(pm.deleteWindow)}</p><p class="hint">${esc(pm.exportFresh)}</p>
<div class="actions">${buttonForm('/account/delete', o.formToken, pm.confirmDelete, { warning: true })}<a class="button button--secondary" href="/account">${esc(pm.cancel)}</a></div>`,
  );
}

export function deletedPage(p: PortalPage, o: { purgeAfter: Date }): string {
  const { pm } = p;
  return page(p, pm.deletedTitle, `<div class="panel"><h1>${esc(pm.deletedTitle)}</h1></div><p id="deleted">${esc(fill(pm.deletedLead, { date: dateOf(p, o.purgeAfter) }))}</p>`);
}

/** After "Sign out": the portal forgets who signed in (the provider's own session is the sign-in pages' business). */
export function signedOutPage(p: PortalPage): string {
  return page(p, p.m.signedOut, `<h1>${esc(p.m.signedOut)}</h1><p><a href="/account">${esc(p.pm.portalTitle)}</a></p>`);
}
