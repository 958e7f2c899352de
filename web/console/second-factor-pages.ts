import { escapeHtml as esc } from '../../http/html';
import { fill } from '../i18n';
import { CONSOLE_PATH } from '../../src/oidc/first-party-sign-in';
import type { SecondFactors } from '../../src/members/second-factor.service';
import type { ConsoleMessages } from './console-messages';
import { errorSummary } from './console-layout';

const SF = `${CONSOLE_PATH}/second-factor`;

function hidden(formToken: string, returnTo: string): string {
  return `<input type="hidden" name="form_token" value="${esc(formToken)}"><input type="hidden" name="return" value="${esc(returnTo)}">`;
}

/** The passkey button: console.js runs the WebAuthn ceremony against `base`/options and `base`, then follows the answer's redirect. */
function passkeyButton(m: ConsoleMessages, o: { base: string; mode: 'register' | 'authenticate'; label: string; formToken: string; returnTo: string }): string {
  return `<div class="passkey" data-passkey="${o.mode}" data-url="${esc(o.base)}" data-form-token="${esc(o.formToken)}" data-return="${esc(o.returnTo)}">
<p class="hint passkey__no-script">${esc(m.needsScript)}</p>
<div class="passkey__error" role="alert" hidden data-message="${esc(m.passkeyFailed)}"></div>
<div class="actions"><button class="button button--primary" type="button" hidden>${esc(o.label)}</button></div></div>`;
}

function totpField(m: ConsoleMessages, invalid: boolean): string {
  return `<div class="field"><label class="label" for="code">${esc(m.totpCode)}</label><p class="hint" id="code-hint">${esc(m.totpHint)}</p>
<input class="text-input" id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" aria-describedby="code-hint"${invalid ? ' aria-invalid="true"' : ''} required></div>`;
}

/** Each console sign-in of a reviewer and above: a passkey, a code from the app, or a recovery code. */
export function verifyPage(m: ConsoleMessages, o: { factors: SecondFactors; formToken: string; returnTo: string; error: string | null; errorField?: 'code' | 'recovery' }): string {
  const passkey = o.factors.passkeys
    ? `<section class="console-section" aria-labelledby="pk-h"><h2 id="pk-h">${esc(m.passkeyHeading)}</h2>${passkeyButton(m, { base: `${SF}/passkey`, mode: 'authenticate', label: m.usePasskey, formToken: o.formToken, returnTo: o.returnTo })}</section>`
    : '';
  const totp = o.factors.totp
    ? `<section class="console-section" aria-labelledby="totp-h"><h2 id="totp-h">${esc(m.totpHeading)}</h2><form method="post" action="${SF}/totp" novalidate>${hidden(o.formToken, o.returnTo)}
${totpField(m, o.errorField === 'code')}<div class="actions"><button class="button button--primary" type="submit">${esc(m.confirmCode)}</button></div></form></section>`
    : '';
  const recovery = o.factors.recoveryCodesLeft
    ? `<section class="console-section" aria-labelledby="rc-h"><h2 id="rc-h">${esc(m.recoveryHeading)}</h2><form method="post" action="${SF}/recovery" novalidate>${hidden(o.formToken, o.returnTo)}
<div class="field"><label class="label" for="recovery">${esc(m.recoveryCode)}</label><p class="hint" id="recovery-hint">${esc(m.recoveryHint)}</p>
<input class="text-input" id="recovery" name="recovery" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="recovery-hint"${o.errorField === 'recovery' ? ' aria-invalid="true"' : ''} required></div>
<div class="actions"><button class="button button--secondary" type="submit">${esc(m.useRecovery)}</button></div></form></section>`
    : '';
  return `${errorSummary(m, o.error, o.errorField)}<h1>${esc(m.verifyTitle)}</h1><p>${esc(m.verifyLead)}</p>${passkey}${totp}${recovery}`;
}

/**
 * Setting up a factor: a passkey, or an authenticator app (its key as text and as a QR code). `totp`
 * null: the app is set up already, and its key is never shown again (docs/console.md, "Second factor").
 */
export function enrolPage(m: ConsoleMessages, o: { totp: { secret: string; qrDataUrl: string } | null; formToken: string; returnTo: string; error: string | null }): string {
  const totp = o.totp
    ? `<p>${esc(m.enrolTotpLead)}</p>
<img class="qr" src="${esc(o.totp.qrDataUrl)}" alt="${esc(m.qrAlt)}" width="200" height="200">
<div class="field"><label class="label" for="totp-key">${esc(m.totpKey)}</label><input class="text-input" id="totp-key" type="text" readonly value="${esc(o.totp.secret)}" autocomplete="off" spellcheck="false"></div>
<form method="post" action="${SF}/enrol/totp" novalidate>${hidden(o.formToken, o.returnTo)}${totpField(m, Boolean(o.error))}
<div class="actions"><button class="button button--primary" type="submit">${esc(m.confirmCode)}</button></div></form>`
    : `<p>${esc(m.totpAlreadySet)}</p>`;
  return `${errorSummary(m, o.error, 'code')}<h1>${esc(m.enrolTitle)}</h1><p>${esc(m.enrolLead)}</p>
<section class="console-section" aria-labelledby="pk-h"><h2 id="pk-h">${esc(m.passkeyHeading)}</h2><p>${esc(m.enrolPasskeyLead)}</p>
${passkeyButton(m, { base: `${SF}/enrol/passkey`, mode: 'register', label: m.createPasskey, formToken: o.formToken, returnTo: o.returnTo })}</section>
<section class="console-section" aria-labelledby="totp-h"><h2 id="totp-h">${esc(m.totpHeading)}</h2>${totp}</section>`;
}

/** Recovery codes, shown once right after the first factor; later visits only say how many are left. */
export function recoveryCodesPage(m: ConsoleMessages, o: { codes: string[] | null; left: number; returnTo: string }): string {
  const body = o.codes
    ? `<p>${esc(m.recoveryLead)}</p><ul class="recovery-codes" aria-label="${esc(m.recoveryHeading)}">${o.codes.map((c) => `<li>${esc(`${c.slice(0, 5)}-${c.slice(5)}`)}</li>`).join('')}</ul>`
    : `<p>${esc(fill(m.recoveryAlready, { n: String(o.left) }))}</p>`;
  return `<h1>${esc(m.recoveryTitle)}</h1>${body}<div class="actions"><a class="button button--primary" href="${esc(o.returnTo)}">${esc(m.continueToConsole)}</a></div>`;
}
