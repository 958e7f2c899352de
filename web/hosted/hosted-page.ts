import type { FlowEntity, SessionEntity } from '../../entities';
import { escapeHtml } from '../../src/http/html';

const STATUS_TEXT: Record<string, string> = {
  created: 'Ready to start',
  in_progress: 'In progress',
  processing: 'We are checking your documents',
  success: 'Verified',
  failed: 'Verification unsuccessful',
  manual_review: 'Under review',
  expired: 'This link has expired',
  withdrawn: 'This verification was cancelled',
};

/** The hosted page, minimal for now: the tenant's branding and the session's status. */
export function renderHostedPage(session: SessionEntity, flow: FlowEntity): string {
  const color = /^#[0-9a-fA-F]{3,8}$/.test(flow.primaryColor) ? flow.primaryColor : '#1f6feb';
  const logo = flow.logoUrl && /^https:\/\//.test(flow.logoUrl) ? `<img src="${escapeHtml(flow.logoUrl)}" alt="" style="max-height:48px">` : '';
  const chipNote =
    session.tier === 'T5'
      ? '<p>This check reads the chip in your passport. Web browsers cannot read NFC chips: please continue in the mobile app you were given.</p>'
      : '';
  return `<!doctype html><html lang="${escapeHtml(session.locale)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(flow.displayName)} - identity verification</title></head>
<body style="font-family: system-ui, sans-serif; margin: 0">
<header style="background:${color}; color:#fff; padding:1rem">${logo}<h1 style="margin:0; font-size:1.25rem">${escapeHtml(flow.displayName)}</h1></header>
<main style="padding:1rem; max-width:32rem; margin:auto">
<p id="status" data-status="${escapeHtml(session.status)}">${escapeHtml(STATUS_TEXT[session.status] ?? session.status)}</p>
${chipNote}
</main></body></html>`;
}
