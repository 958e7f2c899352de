import type { EntityManager } from 'typeorm';
import type { FlowEntity } from '../../entities';
import type { AuditLogService } from '../audit/audit-log.service';
import type { TenantScope } from '../auth/actor';
import { DomainError } from '../errors';
import type { FlowService, UpdateFlowCommand } from '../flows/flow.service';
import type { OidcClients } from '../oidc/oidc-clients';
import type { RetentionRecord, RetentionService } from '../retention/retention.service';
import type { ApiKeySummary, IssuedKey, TenantService } from '../tenants/tenant.service';
import type { WebhookService } from '../webhooks/webhook.service';
import { SUBSCRIBABLE_EVENTS } from '../webhooks/webhook-event';

export type WebhookSummary = { id: string; livemode: boolean; url: string; status: string; events: string[] };
export type DeliveryAttempt = { eventId: string; attempt: number; succeeded: boolean; statusCode: number | null; error: string | null; at: Date };
export type RedirectUris = { clientId: string; livemode: boolean; redirectUris: string[] };

/** Who changes a setting: a member of the tenant, owner or admin (the console's guard checks the role). */
export type SettingsEditor = { memberId: string; tenantId: string };

const REPLAY_WINDOW_MS = 24 * 3600_000;

/**
 * The tenant's settings as the console shows and changes them (docs/console.md, "Settings"). Each
 * change is the existing service's own use case (TenantService keys, WebhookService, RetentionService,
 * OidcClients, FlowService), in the tenant's scope, with one `console.settings_changed` entry naming
 * the member written inside the change's own transaction (issue 40, finding 12): every change made in
 * the console is in the audit chain with who made it, and no entry exists for a change that rolled back.
 */
export class ConsoleSettings {
  constructor(
    private readonly d: { tenants: TenantService; webhooks: WebhookService; retention: RetentionService; clients: OidcClients; flows: FlowService; audit: Pick<AuditLogService, 'append'> },
  ) {}

  /** The entry of one change, appended in the change's transaction `m`. */
  private async changed(m: EntityManager, e: SettingsEditor, livemode: boolean, setting: string, subjectId: string, detail: Record<string, unknown> = {}): Promise<void> {
    await this.d.audit.append({ tenantId: e.tenantId, livemode, action: 'console.settings_changed', subjectId, detail: { member_id: e.memberId, setting, ...detail } }, m);
  }

  keys(tenantId: string): Promise<ApiKeySummary[]> {
    return this.d.tenants.keysOf(tenantId);
  }

  /** The key is returned once, here; only its hash is stored. */
  async createKey(e: SettingsEditor, livemode: boolean, scopes: string[]): Promise<IssuedKey> {
    return this.d.tenants.createKey(e.tenantId, livemode, scopes, (m, issued) => this.changed(m, e, livemode, 'api_key.created', issued.id, { scopes: issued.scopes }));
  }

  async revokeKey(e: SettingsEditor, keyId: string): Promise<void> {
    const livemode = await this.d.tenants.keyModeOf(e.tenantId, keyId);
    if (livemode === null) throw new DomainError('not_found', 'Active key not found');
    await this.d.tenants.revokeKey(keyId, { tenantId: e.tenantId, livemode }, (m) => this.changed(m, e, livemode, 'api_key.revoked', keyId));
  }

  async webhooks(tenantId: string): Promise<WebhookSummary[]> {
    const both = await Promise.all([true, false].map((livemode) => this.d.webhooks.list({ tenantId, livemode })));
    return both.flat().map((w) => ({ id: w.id, livemode: w.livemode, url: w.url, status: w.status, events: w.events }));
  }

  /** The endpoint receives the three verification events; the signing secret is returned once. */
  async createWebhook(e: SettingsEditor, livemode: boolean, url: string): Promise<{ id: string; signingSecret: string }> {
    const { endpoint, signingSecret } = await this.d.webhooks.create({ tenantId: e.tenantId, livemode }, { url, events: [...SUBSCRIBABLE_EVENTS] }, (m, created) => this.changed(m, e, livemode, 'webhook.created', created.id));
    return { id: endpoint.id, signingSecret };
  }

  async deliveries(tenantId: string, livemode: boolean, endpointId: string): Promise<DeliveryAttempt[]> {
    const attempts = await this.d.webhooks.attempts({ tenantId, livemode }, { endpointId, first: 20 });
    return attempts.map((a) => ({ eventId: a.eventId, attempt: a.attempt, succeeded: a.succeeded, statusCode: a.statusCode, error: a.error, at: new Date(a.startedAt) }));
  }

  /** Queues again every event of the last 24 hours for this endpoint (signed afresh). */
  async replay(e: SettingsEditor, livemode: boolean, endpointId: string, now = new Date()): Promise<number> {
    return this.d.webhooks.replay({ tenantId: e.tenantId, livemode }, endpointId, { since: new Date(now.getTime() - REPLAY_WINDOW_MS), until: now }, (m, count) =>
      this.changed(m, e, livemode, 'webhook.replayed', endpointId, { events: count }),
    );
  }

  async retention(tenantId: string): Promise<RetentionRecord[]> {
    return Promise.all([true, false].map((livemode) => this.d.retention.get({ tenantId, livemode }, tenantId)));
  }

  /** Out-of-range values are the service's 400 naming the field (D13). */
  async updateRetention(e: SettingsEditor, livemode: boolean, patch: Record<string, number>): Promise<RetentionRecord> {
    const scope: TenantScope = { tenantId: e.tenantId, livemode };
    return this.d.retention.update(scope, e.tenantId, patch, (m) => this.changed(m, e, livemode, 'retention.updated', e.tenantId));
  }

  redirectUris(tenantId: string): Promise<RedirectUris[]> {
    return this.d.clients.clientsOf(tenantId);
  }

  /** Sets the client's redirect URIs to exactly `uris` (OidcClients checks each one: https in live mode). */
  async setRedirectUris(e: SettingsEditor, livemode: boolean, uris: string[]): Promise<void> {
    const current = (await this.redirectUris(e.tenantId)).find((c) => c.livemode === livemode);
    if (!current) throw new DomainError('not_found', 'This tenant has no OIDC client in that mode');
    await this.d.clients.updateRedirectUris(e.tenantId, livemode ? 'live' : 'test', { add: uris, remove: current.redirectUris.filter((u) => !uris.includes(u)) }, (m) =>
      this.changed(m, e, livemode, 'oidc.redirect_uris', current.clientId, { count: uris.length }),
    );
  }

  flows(tenantId: string): Promise<FlowEntity[]> {
    return this.d.flows.list(tenantId);
  }

  async createFlow(e: SettingsEditor, cmd: UpdateFlowCommand & { name: string }): Promise<FlowEntity> {
    return this.d.flows.create(e.tenantId, cmd, { livemode: true, who: { member_id: e.memberId } }, (m, flow) => this.changed(m, e, true, 'flow.created', flow.id));
  }

  async updateFlow(e: SettingsEditor, flowId: string, cmd: UpdateFlowCommand): Promise<FlowEntity> {
    return this.d.flows.update(e.tenantId, flowId, cmd, { livemode: true, who: { member_id: e.memberId } }, (m, flow) => this.changed(m, e, true, 'flow.updated', flow.id));
  }
}
