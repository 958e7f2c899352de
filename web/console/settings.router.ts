import { type Request, type Response, type Router } from 'express';
import { pageForm } from '../page-input';
import { refuseConsoleInput } from './console-problems';
import { roleAtLeast } from '../../src/members/member';
import { DomainError } from '../../src/errors';
import type { ConsoleSettings } from '../../src/console/console-settings';
import type { ReviewSettings } from '../../src/console/review-settings';
import { RETENTION_FIELDS } from '../../src/retention/retention-policy';
import { wrap } from '../accounts/wrap';
import { reviewPageOf } from './console-access';
import type { ConsoleGate } from './console-guard';
import { sendConsolePage } from './console-layout';
import { fill } from './review-html';
import { deliveriesPage, SETTINGS_PATH, settingsPage, type SettingsView } from './settings-page';

const PURPOSE = 'console:settings';

/**
 * The settings pages (docs/console.md, "Settings"): every member reads them; owners and admins
 * change them, each change a POST with the sign-in's form token, answered by the page again (a key
 * or a signing secret is shown once, in that answer) or by a redirect with a notice.
 */
export function settingsRoutes(router: Router, d: { gate: ConsoleGate; settings: ConsoleSettings; review: ReviewSettings }): void {
  const { gate } = d;
  const form = pageForm('32kb', refuseConsoleInput);
  const editorOf = (res: Response) => {
    const m = gate.memberOf(res);
    return { memberId: m.memberId, tenantId: m.tenantId };
  };
  const mayEdit = (res: Response) => roleAtLeast(gate.memberOf(res).role, 'admin');
  const modeOf = (req: Request): boolean => req.body?.mode === 'live';
  const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

  async function show(req: Request, res: Response, extra: Pick<SettingsView, 'secret' | 'done' | 'error'> = {}, status = 200): Promise<void> {
    const { tenantId } = gate.memberOf(res);
    const [review, keys, webhooks, retention, redirects, flows] = await Promise.all([
      d.review.of(tenantId),
      d.settings.keys(tenantId),
      d.settings.webhooks(tenantId),
      d.settings.retention(tenantId),
      d.settings.redirectUris(tenantId),
      d.settings.flows(tenantId),
    ]);
    const formToken = mayEdit(res) ? gate.formToken(res, PURPOSE) : null;
    sendConsolePage(req, res, { ...settingsPage(reviewPageOf(gate, req, res), { formToken, review, keys, webhooks, retention, redirects, flows, ...extra }), status, active: 'settings' });
  }

  router.get(
    '/settings',
    gate.requireConsoleMember('viewer'),
    wrap(async (req, res) => {
      const p = reviewPageOf(gate, req, res);
      await show(req, res, { done: req.query.done === 'saved' ? p.rm.saved : null });
    }),
  );

  /** A change: the admin guard, the form token, then `run`; a client mistake shows the page with the service's message. */
  const change = (path: string, run: (req: Request, res: Response) => Promise<Pick<SettingsView, 'secret' | 'done'> | void>) =>
    router.post(
      path,
      gate.requireConsoleMember('admin'),
      form,
      wrap(async (req, res) => {
        if (!gate.checkFormToken(res, PURPOSE, req.body?.form_token)) return void res.redirect(303, SETTINGS_PATH);
        try {
          const shown = await run(req, res);
          if (shown) return show(req, res, shown);
          if (!res.headersSent) res.redirect(303, `${SETTINGS_PATH}?done=saved`); // a change may answer itself (replay's own redirect)
        } catch (err) {
          if (err instanceof DomainError && ['invalid_request', 'not_found', 'invalid_state', 'insufficient_scope'].includes(err.code)) {
            const p = reviewPageOf(gate, req, res);
            return show(req, res, { error: { field: 'main', text: fill(p.rm.badInput, { message: err.message }) } }, err.code === 'not_found' ? 404 : 400);
          }
          throw err;
        }
      }),
    );

  change('/settings/review', async (req, res) => {
    await d.review.update(gate.memberOf(res).tenantId, gate.memberOf(res).memberId, { secondReviewerForDeclines: req.body?.second_reviewer === 'on' });
  });
  change('/settings/keys', async (req, res) => {
    const scopes = ([] as unknown[]).concat(req.body?.scopes ?? []).filter((s): s is string => typeof s === 'string');
    const issued = await d.settings.createKey(editorOf(res), modeOf(req), scopes);
    return { secret: { label: reviewPageOf(gate, req, res).rm.keyShownOnce, value: issued.key }, done: null };
  });
  change('/settings/keys/:id/revoke', async (req, res) => {
    await d.settings.revokeKey(editorOf(res), String(req.params.id));
  });
  change('/settings/webhooks', async (req, res) => {
    const created = await d.settings.createWebhook(editorOf(res), modeOf(req), text(req.body?.url));
    const p = reviewPageOf(gate, req, res);
    return { secret: { label: p.rm.webhookSecretOnce, value: created.signingSecret }, done: null };
  });
  change('/settings/webhooks/:id/replay', async (req, res) => {
    const id = String(req.params.id);
    const count = await d.settings.replay(editorOf(res), modeOf(req), id);
    res.redirect(303, `${SETTINGS_PATH}/webhooks/${encodeURIComponent(id)}?mode=${modeOf(req) ? 'live' : 'test'}&replayed=${count}`);
    return undefined;
  });
  change('/settings/retention', async (req, res) => {
    const patch: Record<string, number> = {};
    for (const f of RETENTION_FIELDS) if (text(req.body?.[f]) !== '') patch[f] = Number(text(req.body?.[f]));
    await d.settings.updateRetention(editorOf(res), modeOf(req), patch);
  });
  change('/settings/redirect-uris', async (req, res) => {
    const uris = text(req.body?.uris).split(/\s+/).filter(Boolean);
    await d.settings.setRedirectUris(editorOf(res), modeOf(req), uris);
  });
  const flowCommand = (req: Request) => ({
    name: text(req.body?.name),
    maxTier: text(req.body?.max_tier),
    displayName: text(req.body?.display_name) || undefined,
    logoUrl: text(req.body?.logo_url) || null,
    primaryColor: text(req.body?.primary_color) || undefined,
    locale: text(req.body?.locale) || undefined,
    redirectUrl: text(req.body?.redirect_url) || null,
    // Absent (a form from before the choice existed) leaves the flow as it is.
    digitalIdEnabled: text(req.body?.digital_id) === 'on' ? true : text(req.body?.digital_id) === 'off' ? false : undefined,
  });
  change('/settings/flows', async (req, res) => {
    await d.settings.createFlow(editorOf(res), flowCommand(req));
  });
  change('/settings/flows/:id', async (req, res) => {
    await d.settings.updateFlow(editorOf(res), String(req.params.id), flowCommand(req));
  });

  router.get(
    '/settings/webhooks/:id',
    gate.requireConsoleMember('viewer'),
    wrap(async (req, res) => {
      const { tenantId } = gate.memberOf(res);
      const livemode = req.query.mode === 'live';
      const webhook = (await d.settings.webhooks(tenantId)).find((w) => w.id === String(req.params.id) && w.livemode === livemode);
      const p = reviewPageOf(gate, req, res);
      if (!webhook) return void res.redirect(303, SETTINGS_PATH);
      const attempts = await d.settings.deliveries(tenantId, livemode, webhook.id);
      const replayed = typeof req.query.replayed === 'string' && /^\d+$/.test(req.query.replayed) ? fill(p.rm.replayed, { count: req.query.replayed }) : null;
      sendConsolePage(req, res, { ...deliveriesPage(p, { webhook, attempts, formToken: mayEdit(res) ? gate.formToken(res, PURPOSE) : null, done: replayed }), active: 'settings' });
    }),
  );
}
