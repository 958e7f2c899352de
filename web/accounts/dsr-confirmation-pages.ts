import { escapeHtml } from '../../http/html';
import { fill } from '../i18n';
import type { AccountMessages } from './account-messages';
import { shell, type Page } from './account-pages';

/** What the export bundle holds, in words (docs/data-rights.md, "The export bundle"). */
const SHARED: (keyof AccountMessages)[] = ['dsr_profile', 'dsr_social', 'dsr_verifications', 'dsr_documents', 'dsr_audit', 'dsr_grants'];

export type DsrOutcome = 'confirmed' | 'declined' | 'closed' | 'failed';

/**
 * A tenant's delegated request, shown to the signed-in user it is about (docs/data-rights.md,
 * "Delegated requests"): who asks, what would be shared, when it lapses; Confirm and Decline are
 * two forms, each with the message's token and a form token bound to this sign-in.
 */
export function dsrRequestPage(
  p: Omit<Page, 'title'>,
  o: { tenantName: string; confirmBy: Date | null; confirmAction: string; declineAction: string; token: string; formToken: string; error: string | null },
): string {
  const { m } = p;
  const tenant = o.tenantName;
  const date = o.confirmBy ? new Intl.DateTimeFormat(p.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(o.confirmBy) : '';
  const hidden = `<input type="hidden" name="token" value="${escapeHtml(o.token)}"><input type="hidden" name="form_token" value="${escapeHtml(o.formToken)}">`;
  const error = o.error ? `<div class="error-summary" role="alert" tabindex="-1"><h2 class="error-summary__title">${escapeHtml(m.errorSummary)}</h2><p>${escapeHtml(o.error)}</p></div>` : '';
  return shell(
    { ...p, title: `${fill(m.dsrTitle, { tenant })} - ${p.client}` },
    `${error}<h1>${escapeHtml(fill(m.dsrTitle, { tenant }))}</h1>
<p>${escapeHtml(fill(m.dsrLead, { tenant }))}</p>
<p>${escapeHtml(fill(m.dsrWhat, { tenant }))}</p>
<ul class="list">${SHARED.map((k) => `<li>${escapeHtml(m[k])}</li>`).join('')}</ul>
${date ? `<p id="confirm-by">${escapeHtml(fill(m.dsrDeadline, { date }))}</p>` : ''}
<div class="actions">
<form method="post" action="${escapeHtml(o.confirmAction)}">${hidden}<button class="button button--primary" type="submit">${escapeHtml(m.confirmRequest)}</button></form>
<form method="post" action="${escapeHtml(o.declineAction)}">${hidden}<button class="button button--secondary" type="submit">${escapeHtml(m.declineRequest)}</button></form>
</div>`,
  );
}

/** The request once the user answered it (or it lapsed): what happened, in words. */
export function dsrOutcomePage(p: Omit<Page, 'title'>, o: { outcome: DsrOutcome; tenantName: string }): string {
  const { m } = p;
  const tenant = o.tenantName;
  const [title, lead] = {
    confirmed: [m.dsrConfirmedTitle, m.dsrConfirmedLead],
    declined: [m.dsrDeclinedTitle, m.dsrDeclinedLead],
    closed: [m.dsrClosedTitle, m.dsrClosedLead],
    failed: [m.dsrClosedTitle, m.dsrFailedLead],
  }[o.outcome];
  return shell(
    { ...p, title: `${title} - ${p.client}` },
    `<h1>${escapeHtml(title)}</h1><p id="outcome" data-outcome="${o.outcome}">${escapeHtml(fill(lead, { tenant }))}</p>`,
  );
}
