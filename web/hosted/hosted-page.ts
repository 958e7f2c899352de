import type { FlowEntity, SessionEntity } from '../../entities';
import { escapeHtml } from '../../http/html';

export const HOSTED_LOCALES = ['en-US', 'de-DE'] as const;

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

/** The session's locale when the page ships it (or its language), else the browser's preference, else en-US. */
export function pickLocale(sessionLocale: string, acceptsLanguages: (langs: string[]) => string | false): string {
  const exact = HOSTED_LOCALES.find((l) => l.toLowerCase() === sessionLocale.toLowerCase());
  if (exact) return exact;
  const byLanguage = HOSTED_LOCALES.find((l) => l.split('-')[0] === sessionLocale.split('-')[0].toLowerCase());
  if (byLanguage) return byLanguage;
  const accepted = acceptsLanguages([...HOSTED_LOCALES, 'en', 'de']);
  if (accepted) return HOSTED_LOCALES.find((l) => l.startsWith(accepted.split('-')[0])) ?? 'en-US';
  return 'en-US';
}

/** White or near-black text, whichever reads better on the brand colour (WCAG relative luminance). */
export function textOn(hex: string): string {
  const full = hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join('')}` : hex.slice(0, 7);
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const onWhite = 1.05 / (l + 0.05);
  const onDark = (l + 0.05) / 0.0539; // #0b0c0c's luminance is about 0.0039
  return onWhite >= onDark ? '#ffffff' : '#0b0c0c';
}

/**
 * The hosted page's HTML shell: the tenant's brand, the status as plain text (what a browser
 * without JavaScript shows), and the app that runs the steps (web/hosted/client). The style nonce
 * lets the brand colour in under a CSP that allows no other inline style.
 */
export function renderHostedPage(session: SessionEntity, flow: FlowEntity, opts: { locale: string; styleNonce: string; hostedUrl: string }): string {
  const color = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(flow.primaryColor) ? flow.primaryColor : '#1f6feb';
  const logo = flow.logoUrl && /^https:\/\//.test(flow.logoUrl) ? `<img src="${escapeHtml(flow.logoUrl)}" alt="${escapeHtml(flow.displayName)}">` : '';
  const chipNote =
    session.tier === 'T5'
      ? '<p>This check reads the chip in your passport. Web browsers cannot read NFC chips: please continue in the mobile app you were given.</p>'
      : '';
  const config = JSON.stringify({ session_id: session.id, locale: opts.locale, hosted_url: opts.hostedUrl }).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="${escapeHtml(opts.locale)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(flow.displayName)} - identity verification</title>
<link rel="stylesheet" href="/hosted/assets/app.css">
<style nonce="${opts.styleNonce}">:root{--brand:${color};--brand-text:${textOn(color)}}</style>
<script type="application/json" id="hosted-config">${config}</script>
<script src="/hosted/assets/app.js" defer></script></head>
<body><a class="skip-link" href="#app">Skip to main content</a>
<header class="brand">${logo}<p class="brand__name">${escapeHtml(flow.displayName)}</p></header>
<main id="app" tabindex="-1">
<h1>${escapeHtml(flow.displayName)}</h1>
<p id="status" data-status="${escapeHtml(session.status)}">${escapeHtml(STATUS_TEXT[session.status] ?? session.status)}</p>
${chipNote}
<noscript><p>This page needs JavaScript to use your camera.</p></noscript>
</main></body></html>`;
}
