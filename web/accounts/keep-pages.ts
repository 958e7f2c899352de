import { escapeHtml } from '../../http/html';
import { fill } from '../i18n';
import { shell, type Page } from './account-pages';

/** After "Keep this verification in your account" (docs/accounts-and-oidc.md, "Keeping a verification"). */
export function keptPage(p: Omit<Page, 'title'>, o: { tenantName: string }): string {
  const { m } = p;
  return shell(
    { ...p, title: `${m.keptTitle} - ${p.client}` },
    `<div class="panel"><h1>${escapeHtml(m.keptTitle)}</h1></div>
<p id="kept">${escapeHtml(fill(m.keptLead, { client: o.tenantName }))}</p>
<p>${escapeHtml(fill(m.keptNext, { client: o.tenantName }))}</p>`,
  );
}
