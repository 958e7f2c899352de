import { QUEUE_REASONS, type QueueFilter, type QueuePage } from '../../src/console/review-queue';
import { AVAILABLE_TIERS } from '../../src/sessions/tiers';
import { age, dateTime, esc, fill, type PageContent, type ReviewPage, select, summaryRow, word } from './review-html';

export const QUEUE_PATH = '/console/queue';
export const casePath = (sessionId: string): string => `/console/cases/${encodeURIComponent(sessionId)}`;

/** The query string of a filter (and a cursor), as the filter form sends it. */
export function queueQuery(f: QueueFilter, after?: string | null): string {
  const q = new URLSearchParams();
  if (f.tier) q.set('tier', f.tier);
  if (f.reason) q.set('reason', f.reason);
  if (f.livemode != null) q.set('mode', f.livemode ? 'live' : 'test');
  if (after) q.set('after', after);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * The queue (issue 27, "Queue"): one card per waiting session, oldest first, with its age, tier,
 * reasons and deadline, and the link that opens its case (the first of the three actions of a
 * decision). Filters are a GET form, so a filtered queue is a link one can share.
 */
export function queuePage(p: ReviewPage, o: { filter: QueueFilter; page: QueuePage; paged: boolean; now: Date }): PageContent {
  const { rm } = p;
  const mode = o.filter.livemode == null ? '' : o.filter.livemode ? 'live' : 'test';
  const filters = `<form class="filters" method="get" action="${QUEUE_PATH}" aria-labelledby="filters-h"><h2 id="filters-h">${esc(rm.filtersHeading)}</h2>
${select('tier', rm.filterTier, [{ value: '', text: rm.any }, ...AVAILABLE_TIERS.filter((t) => t !== 'T0').map((t) => ({ value: t, text: t }))], o.filter.tier ?? '')}
${select('reason', rm.filterReason, [{ value: '', text: rm.any }, ...QUEUE_REASONS.map((r) => ({ value: r, text: word(rm, `reason_${r}`, r) }))], o.filter.reason ?? '')}
${select('mode', rm.filterMode, [{ value: '', text: rm.any }, { value: 'live', text: rm.live }, { value: 'test', text: rm.test }], mode)}
<div class="actions"><button class="button button--secondary" type="submit">${esc(rm.applyFilters)}</button></div></form>`;

  const cards = o.page.items.length
    ? `<ul class="cards" aria-label="${esc(rm.queueTitle)}">${o.page.items
        .map((i) => {
          const overdue = i.deadline && i.deadline.getTime() < o.now.getTime();
          const deadline = i.deadline ? esc(overdue ? fill(rm.overdue, { date: dateTime(p, i.deadline) }) : dateTime(p, i.deadline)) : esc(rm.noDeadline);
          return `<li class="card" data-session-id="${esc(i.sessionId)}"><h3 class="card__title"><a href="${esc(casePath(i.sessionId))}">${esc(fill(rm.openCase, { id: i.sessionId }))}</a></h3><dl class="summary">
${summaryRow(rm.waiting, `<time datetime="${i.waitingSince.toISOString()}">${esc(age(p, i.waitingSince, o.now))}</time>`)}
${summaryRow(rm.deadline, `<span class="${overdue ? 'overdue' : ''}">${deadline}</span>`)}
${summaryRow(rm.tier, esc(i.tier))}
${summaryRow(rm.reasons, esc(i.reasons.map((r) => word(rm, `reason_${r}`, r)).join('; ')) + (i.flaggedChecks.length ? ` <span class="hint">(${esc(i.flaggedChecks.join(', '))})</span>` : ''))}
${summaryRow(rm.mode, esc(i.livemode ? rm.live : rm.test))}
${i.referenceId ? summaryRow(rm.reference, esc(i.referenceId)) : ''}
${i.pendingDecline ? summaryRow(rm.status, esc(rm.pendingDeclineShort)) : ''}
${i.status !== 'manual_review' ? summaryRow(rm.status, esc(i.status)) : ''}</dl></li>`;
        })
        .join('')}</ul>`
    : `<p>${esc(rm.queueEmpty)}</p>`;

  const nav = [
    o.paged ? `<a href="${QUEUE_PATH}${esc(queueQuery(o.filter))}">${esc(rm.firstPage)}</a>` : '',
    o.page.nextCursor ? `<a rel="next" href="${QUEUE_PATH}${esc(queueQuery(o.filter, o.page.nextCursor))}">${esc(rm.nextPage)}</a>` : '',
  ].filter(Boolean);
  return {
    title: rm.queueTitle,
    body: `<h1>${esc(rm.queueTitle)}</h1><p>${esc(rm.queueLead)}</p>${filters}<section aria-label="${esc(rm.queueTitle)}">${cards}</section>${nav.length ? `<nav class="pager" aria-label="${esc(rm.nextPage)}">${nav.join(' ')}</nav>` : ''}`,
  };
}
