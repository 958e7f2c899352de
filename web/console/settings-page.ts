import type { FlowEntity } from '../../entities';
import { ALL_SCOPES } from '../../src/auth/actor';
import type { DeliveryAttempt, RedirectUris, WebhookSummary } from '../../src/console/console-settings';
import type { ApiKeySummary } from '../../src/tenants/tenant.service';
import type { ReviewSettingsValues } from '../../src/console/review-settings';
import { RETENTION_FIELDS } from '../../src/retention/retention-policy';
import type { RetentionRecord } from '../../src/retention/retention.service';
import { AVAILABLE_TIERS } from '../../src/sessions/tiers';
import { dateTime, errorSummary, esc, fill, hidden, notice, type PageContent, type ReviewPage, section, select, summaryRow, table, word } from './review-html';

export const SETTINGS_PATH = '/console/settings';

export type SettingsView = {
  /** Null for reviewers and viewers: they read the settings, and no form is shown. */
  formToken: string | null;
  review: ReviewSettingsValues;
  keys: ApiKeySummary[];
  webhooks: WebhookSummary[];
  retention: RetentionRecord[];
  redirects: RedirectUris[];
  flows: FlowEntity[];
  /** Shown once after a create: a new key or a webhook's signing secret. */
  secret?: { label: string; value: string } | null;
  done?: string | null;
  error?: { field: string; text: string } | null;
};

const modeName = (p: ReviewPage, livemode: boolean) => (livemode ? p.rm.live : p.rm.test);
function input(id: string, name: string, label: string, value: string, o: { type?: string; hint?: string; required?: boolean } = {}): string {
  const hint = o.hint ? `<p class="hint" id="${id}-hint">${esc(o.hint)}</p>` : '';
  return `<div class="field"><label class="label" for="${id}">${esc(label)}</label>${hint}<input class="text-input" id="${id}" name="${name}" type="${o.type ?? 'text'}" value="${esc(value)}"${o.hint ? ` aria-describedby="${id}-hint"` : ''}${o.required ? ' required' : ''}></div>`;
}

function postForm(action: string, token: string, fields: string, button: string, secondary = false): string {
  return `<form method="post" action="${esc(action)}" novalidate>${hidden('form_token', token)}${fields}<div class="actions"><button class="button ${secondary ? 'button--secondary' : 'button--primary'}" type="submit">${esc(button)}</button></div></form>`;
}

function flowFields(p: ReviewPage, prefix: string, f: Partial<FlowEntity>): string {
  const { rm } = p;
  return `${input(`${prefix}-name`, 'name', rm.flowName, f.name ?? '', { required: true })}
${select(`${prefix}-max_tier`, rm.flowMaxTier, AVAILABLE_TIERS.map((t) => ({ value: t, text: t })), f.maxTier ?? 'T5', 'max_tier')}
${input(`${prefix}-display_name`, 'display_name', rm.flowDisplayName, f.displayName ?? '')}
${input(`${prefix}-logo_url`, 'logo_url', `${rm.flowLogoUrl} (${rm.optional})`, f.logoUrl ?? '', { type: 'url' })}
${input(`${prefix}-primary_color`, 'primary_color', rm.flowColor, f.primaryColor ?? '#1f6feb')}
${input(`${prefix}-locale`, 'locale', rm.flowLocale, f.locale ?? p.locale)}
${input(`${prefix}-redirect_url`, 'redirect_url', `${rm.flowRedirect} (${rm.optional})`, f.redirectUrl ?? '', { type: 'url' })}
${onOff(`${prefix}-digital_id`, 'digital_id', rm.flowDigitalId, rm.flowDigitalIdHint, f.digitalIdEnabled ?? true, p)}`;
}

/** An on/off choice as two radios (the review section's pattern), with its hint. */
function onOff(id: string, name: string, legend: string, hint: string, on: boolean, p: ReviewPage): string {
  const radio = (value: 'on' | 'off', checked: boolean) =>
    `<div class="radio"><input class="radio__input" type="radio" id="${id}-${value}" name="${name}" value="${value}"${checked ? ' checked' : ''}><label class="radio__label" for="${id}-${value}">${esc(value === 'on' ? p.rm.on : p.rm.off)}</label></div>`;
  return `<fieldset class="fieldset" aria-describedby="${id}-hint"><legend class="label">${esc(legend)}</legend><p class="hint" id="${id}-hint">${esc(hint)}</p>${radio('on', on)}${radio('off', !on)}</fieldset>`;
}

/**
 * The tenant's settings (issue 27, "Settings pages"): review, API keys, webhooks, retention, OIDC
 * redirect URIs and flows, on one page of sections. Owners and admins get a form per change (each
 * with the sign-in's form token); other roles read the same values.
 */
export function settingsPage(p: ReviewPage, v: SettingsView): PageContent {
  const { rm } = p;
  const t = v.formToken;
  const head = `${v.error ? errorSummary(p, [v.error]) : ''}${v.done ? notice(v.done) : ''}<h1>${esc(rm.settingsTitle)}</h1>${t ? '' : `<p>${esc(fill(rm.settingsReadOnly, { role: p.role }))}</p>`}${
    v.secret ? `<div class="notice" role="status"><p>${esc(v.secret.label)}</p><p class="key">${esc(v.secret.value)}</p></div>` : ''
  }`;

  const review = t
    ? postForm(
        `${SETTINGS_PATH}/review`,
        t,
        `<fieldset class="fieldset"><legend class="label">${esc(rm.secondReviewer)}</legend><p class="hint">${esc(rm.secondReviewerHint)}</p>
<div class="radio"><input class="radio__input" type="radio" id="second-on" name="second_reviewer" value="on"${v.review.secondReviewerForDeclines ? ' checked' : ''}><label class="radio__label" for="second-on">${esc(rm.on)}</label></div>
<div class="radio"><input class="radio__input" type="radio" id="second-off" name="second_reviewer" value="off"${v.review.secondReviewerForDeclines ? '' : ' checked'}><label class="radio__label" for="second-off">${esc(rm.off)}</label></div></fieldset>`,
        rm.save,
      )
    : `<dl class="summary">${summaryRow(rm.secondReviewer, esc(v.review.secondReviewerForDeclines ? rm.on : rm.off))}</dl>`;

  const keyRows = v.keys.map((k) => [
    esc(fill(rm.keyEnding, { last4: k.last4 })),
    esc(modeName(p, k.livemode)),
    esc(k.scopes.join(', ')),
    esc(dateTime(p, k.createdAt)),
    k.revokedAt ? esc(rm.keyRevoked) : t ? postForm(`${SETTINGS_PATH}/keys/${encodeURIComponent(k.id)}/revoke`, t, '', fill(rm.keyRevoke, { last4: k.last4 }), true) : '',
  ]);
  const keys = `${v.keys.length ? table(rm.keysHeading, ['', rm.keyMode, rm.keyScopes, rm.created, ''], keyRows) : `<p>${esc(rm.keysNone)}</p>`}${
    t
      ? postForm(
          `${SETTINGS_PATH}/keys`,
          t,
          `${select('key-mode', rm.keyMode, [{ value: 'test', text: rm.test }, { value: 'live', text: rm.live }], 'test', 'mode')}
<fieldset class="fieldset"><legend class="label">${esc(rm.keyScopes)}</legend><p class="hint">${esc(rm.keyScopesHint)}</p>${ALL_SCOPES.map(
            (s) => `<div class="checkbox"><input class="checkbox__input" type="checkbox" id="scope-${s.replace(':', '-')}" name="scopes" value="${s}"><label class="checkbox__label" for="scope-${s.replace(':', '-')}">${esc(s)}</label></div>`,
          ).join('')}</fieldset>`,
          rm.keyCreate,
        )
      : ''
  }`;

  const webhooks = `${
    v.webhooks.length
      ? table(
          rm.webhooksHeading,
          [rm.webhookUrl, rm.mode, rm.status, ''],
          v.webhooks.map((w) => [esc(w.url), esc(modeName(p, w.livemode)), esc(w.status), `<a href="${SETTINGS_PATH}/webhooks/${encodeURIComponent(w.id)}?mode=${w.livemode ? 'live' : 'test'}">${esc(fill(rm.webhookDeliveries, { url: w.url }))}</a>`]),
        )
      : `<p>${esc(rm.webhooksNone)}</p>`
  }${
    t
      ? postForm(
          `${SETTINGS_PATH}/webhooks`,
          t,
          `${select('webhook-mode', rm.mode, [{ value: 'test', text: rm.test }, { value: 'live', text: rm.live }], 'test', 'mode')}${input('webhook-url', 'url', rm.webhookUrl, '', { type: 'url', required: true })}`,
          rm.webhookCreate,
        )
      : ''
  }`;

  const retention = v.retention
    .map((r) => {
      const mode = r.livemode ? 'live' : 'test';
      const heading = `<h3>${esc(modeName(p, r.livemode))}</h3>`;
      if (!t) return `${heading}<dl class="summary">${RETENTION_FIELDS.map((f) => summaryRow(word(rm, `retention_${f}`, f), esc(String(r[f])))).join('')}</dl>`;
      return `${heading}${postForm(
        `${SETTINGS_PATH}/retention`,
        t,
        `${hidden('mode', mode)}${RETENTION_FIELDS.map((f) => input(`retention-${mode}-${f}`, f, word(rm, `retention_${f}`, f), String(r[f]), { type: 'number' })).join('')}`,
        `${rm.save} (${modeName(p, r.livemode)})`,
      )}`;
    })
    .join('');

  const redirects = v.redirects
    .map((c) => {
      const mode = c.livemode ? 'live' : 'test';
      const label = c.livemode ? rm.redirectsLive : rm.redirectsTest;
      if (!t) return `<h3>${esc(label)}</h3><ul class="list">${c.redirectUris.map((u) => `<li>${esc(u)}</li>`).join('')}</ul>`;
      return `<h3>${esc(label)}</h3>${postForm(
        `${SETTINGS_PATH}/redirect-uris`,
        t,
        `${hidden('mode', mode)}<div class="field"><label class="label" for="redirects-${mode}">${esc(`${rm.redirectsHeading}: ${label}`)}</label><p class="hint" id="redirects-${mode}-hint">${esc(rm.redirectsHint)}</p>
<textarea class="text-input" id="redirects-${mode}" name="uris" rows="3" aria-describedby="redirects-${mode}-hint">${esc(c.redirectUris.join('\n'))}</textarea></div>`,
        `${rm.save} (${label})`,
      )}`;
    })
    .join('');

  const flows = `${v.flows
    .map((f) => {
      const facts = `<dl class="summary">${summaryRow(rm.flowMaxTier, esc(f.maxTier))}${summaryRow(rm.flowLocale, esc(f.locale))}${summaryRow(rm.flowDisplayName, esc(f.displayName))}${summaryRow(rm.flowRedirect, esc(f.redirectUrl ?? ''))}${summaryRow(rm.flowDigitalId, esc(f.digitalIdEnabled ? rm.on : rm.off))}</dl>`;
      return `<h3>${esc(f.name)} <span class="hint">${esc(f.id)}</span></h3>${t ? postForm(`${SETTINGS_PATH}/flows/${encodeURIComponent(f.id)}`, t, flowFields(p, `flow-${f.id}`, f), fill(rm.flowSave, { name: f.name })) : facts}`;
    })
    .join('')}${t ? `<h3>${esc(rm.flowCreate)}</h3>${postForm(`${SETTINGS_PATH}/flows`, t, flowFields(p, 'flow-new', { maxTier: 'T2' }), rm.flowCreate)}` : ''}`;

  return {
    title: rm.settingsTitle,
    body: [
      head,
      section('review-settings-h', rm.reviewSettingsHeading, review),
      section('keys-h', rm.keysHeading, keys),
      section('webhooks-h', rm.webhooksHeading, webhooks),
      section('retention-h', rm.retentionHeading, retention),
      section('redirects-h', rm.redirectsHeading, redirects),
      section('flows-h', rm.flowsHeading, flows),
    ].join('\n'),
  };
}

/** One endpoint's delivery log (each attempt) and, for owners and admins, the replay form. */
export function deliveriesPage(p: ReviewPage, o: { webhook: WebhookSummary; attempts: DeliveryAttempt[]; formToken: string | null; done?: string | null }): PageContent {
  const { rm } = p;
  const title = fill(rm.webhookDeliveries, { url: o.webhook.url });
  const log = o.attempts.length
    ? table(
        title,
        [rm.deliveryEvent, rm.deliveryAttempts, rm.deliveryStatus, rm.auditWhen],
        o.attempts.map((a) => [esc(a.eventId), esc(String(a.attempt)), esc(a.succeeded ? `${a.statusCode ?? ''} OK` : `${a.statusCode ?? ''} ${a.error ?? ''}`.trim()), esc(dateTime(p, a.at))]),
      )
    : `<p>${esc(rm.deliveriesNone)}</p>`;
  const replay = o.formToken
    ? postForm(`${SETTINGS_PATH}/webhooks/${encodeURIComponent(o.webhook.id)}/replay`, o.formToken, hidden('mode', o.webhook.livemode ? 'live' : 'test'), rm.webhookReplay, true)
    : '';
  return { title, body: `<p><a href="${SETTINGS_PATH}">${esc(rm.settingsTitle)}</a></p>${o.done ? notice(o.done) : ''}<h1>${esc(title)}</h1>${log}${replay}` };
}
