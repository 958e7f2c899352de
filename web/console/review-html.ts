import { escapeHtml } from '../../http/html';
import type { AccountLocale } from '../accounts/account-messages';
import { fill } from '../i18n';
import type { ReviewMessages } from './review-messages';

/** What every review and settings page is rendered with: the language, its words, and who looks. */
export type ReviewPage = { locale: AccountLocale; rm: ReviewMessages; memberId: string; role: string };

/** A page's title and its main content; the console's layout (web/console/console-layout.ts) wraps it. */
export type PageContent = { title: string; body: string };

export const esc = escapeHtml;
export { fill };

/** A message by a key built at run time (a status, a reason), or the key itself when it has no words. */
export const word = (rm: ReviewMessages, key: string, fallback: string): string => (rm as Record<string, string>)[key] ?? fallback;

export const dateTime = (p: ReviewPage, d: Date): string => new Intl.DateTimeFormat(p.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(d) + ' UTC';

/** How long ago, in the largest whole unit (minutes, hours, days), in the page's language. */
export function age(p: ReviewPage, since: Date, now: Date): string {
  const minutes = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 60_000));
  const [value, unit] = minutes < 60 ? [minutes, 'minute'] : minutes < 48 * 60 ? [Math.floor(minutes / 60), 'hour'] : [Math.floor(minutes / 1440), 'day'];
  return new Intl.NumberFormat(p.locale, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}

export function summaryRow(label: string, valueHtml: string): string {
  return `<div class="summary__row"><dt>${esc(label)}</dt><dd>${valueHtml}</dd></div>`;
}

export function errorSummary(p: ReviewPage, errors: { field: string; text: string }[]): string {
  if (!errors.length) return '';
  return `<div class="error-summary" role="alert" tabindex="-1"><h2 class="error-summary__title">${esc(p.rm.errorSummary)}</h2><ul class="list">${errors
    .map((e) => `<li><a href="#${esc(e.field)}">${esc(e.text)}</a></li>`)
    .join('')}</ul></div>`;
}

/** A page section named by its heading (for screen readers' landmarks). */
export const section = (id: string, heading: string, body: string): string => `<section aria-labelledby="${id}"><h2 id="${id}">${esc(heading)}</h2>${body}</section>`;

export const notice = (text: string): string => `<div class="notice" role="status"><p>${esc(text)}</p></div>`;

/** A table that may be wider than a phone: it scrolls inside a labelled, focusable region (so a keyboard can scroll it too). */
export function table(label: string, head: string[], rows: string[][]): string {
  return `<div class="table-wrap" role="region" aria-label="${esc(label)}" tabindex="0"><table class="table"><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table></div>`;
}

export function select(id: string, label: string, options: { value: string; text: string }[], chosen: string, name = id): string {
  return `<div class="field"><label class="label" for="${esc(id)}">${esc(label)}</label><select class="select" id="${esc(id)}" name="${esc(name)}">${options
    .map((o) => `<option value="${esc(o.value)}"${o.value === chosen ? ' selected' : ''}>${esc(o.text)}</option>`)
    .join('')}</select></div>`;
}

export const hidden = (name: string, value: string): string => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`;
