import type { AlsoWithin } from '../db/also-within';
import { DataSource } from 'typeorm';
import { FlowEntity } from '../../entities';
import type { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../errors';
import { newId } from '../ids';
import { AVAILABLE_TIERS } from '../sessions/tiers';
import { hasUnstorableCharacters } from '../validation/postgres-text';

export type UpdateFlowCommand = {
  name?: string;
  /** The highest tier a session of this flow may ask for (docs/decisions.md D2). */
  maxTier?: string;
  displayName?: string;
  logoUrl?: string | null;
  primaryColor?: string;
  locale?: string;
  redirectUrl?: string | null;
  allowedOrigins?: string[];
  /** D24: whether the hosted page offers "Use a digital ID". */
  digitalIdEnabled?: boolean;
};

const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
export const MAX_ALLOWED_ORIGINS = 20;
/** A URL a flow keeps (logo, redirect, origin): longer than any real one, short enough to render. */
const MAX_URL_LENGTH = 2048;
/** `default`, or a flow id as newId makes them; anything else is not found without a query. */
export const FLOW_ID_PATTERN = /^flow_[A-Za-z0-9]{16,64}$/;

const invalid = (message: string) => new DomainError('invalid_request', message);

/**
 * The text of one field, from whichever transport: a string PostgreSQL can store, at most `max`
 * characters. The console's forms, the /v1 routes and GraphQL all reach FlowService, so a NUL or an
 * over-long value is the same 400 naming the field on every one.
 */
function textOf(field: string, value: unknown, max: number): string {
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
  if (hasUnstorableCharacters(value)) throw invalid(`${field} contains a NUL character or an unpaired UTF-16 surrogate`);
  if (value.length > max) throw invalid(`${field} must be at most ${max} characters`);
  return value;
}

/**
 * Normalises one origin (`scheme://host[:port]`, nothing else). http is accepted so test-mode
 * pages on a developer's machine can embed the flow; live sessions only ever honour the https ones.
 */
export function parseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DomainError('invalid_request', `allowed_origins: ${JSON.stringify(value)} is not an origin such as https://shop.example`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.pathname !== '/' || url.search || url.hash || url.username || value.replace(/\/$/, '') !== url.origin) {
    throw new DomainError('invalid_request', `allowed_origins: ${JSON.stringify(value)} must be a bare origin such as https://shop.example (no path, query or credentials)`);
  }
  return url.origin;
}

/** https, or http on the loopback host (a secure context to browsers: a developer's own machine). */
const trustworthy = (origin: string): boolean => origin.startsWith('https://') || /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin);

/**
 * The origins a session may be embedded by and post to: the flow's allowed_origins plus the
 * redirect_url's origin; in live mode only https ones (and loopback) (docs/hosted-flow.md).
 */
export function originsFor(flow: Pick<FlowEntity, 'allowedOrigins'>, livemode: boolean, redirectUrl: string | null): string[] {
  const origins = new Set((flow.allowedOrigins ?? []).filter((o) => !livemode || trustworthy(o)));
  if (redirectUrl) {
    try {
      const o = new URL(redirectUrl).origin;
      if (!livemode || trustworthy(o)) origins.add(o);
    } catch {}
  }
  return [...origins];
}

/**
 * Who changes a flow, for its audit entry: the mode of the key that asked (a flow serves both modes, so
 * the console and the operator's CLI, which have no mode, write to the live log, as the console's own
 * settings entries do) and who it was (`key_id`, `member_id`, or `by: 'operator'`).
 */
export type FlowEditor = { livemode: boolean; who: { key_id: string } | { member_id: string } | { by: 'operator' } };

/** The fields a change set, by their API names: what the audit entry records (never the values). */
const FIELD_NAMES: Record<keyof UpdateFlowCommand, string> = {
  name: 'name',
  maxTier: 'max_tier',
  displayName: 'display_name',
  logoUrl: 'logo_url',
  primaryColor: 'primary_color',
  locale: 'locale',
  redirectUrl: 'redirect_url',
  allowedOrigins: 'allowed_origins',
  digitalIdEnabled: 'digital_id',
};

/**
 * Flow templates: branding, embedding origins and defaults. The console's Flows section, the /v1 flow
 * routes, the GraphQL flow operations and the CLI all change them here, each change audited
 * (`flow.created`, `flow.updated`) in its own transaction.
 */
export class FlowService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: Pick<AuditLogService, 'append'>,
  ) {}

  async get(tenantId: string, flowId: string): Promise<FlowEntity> {
    if (flowId !== 'default' && !FLOW_ID_PATTERN.test(flowId)) throw new DomainError('not_found', 'Flow not found');
    const repo = this.db.getRepository(FlowEntity);
    const flow = flowId === 'default' ? await repo.findOneBy({ tenantId, isDefault: true }) : await repo.findOneBy({ tenantId, id: flowId });
    if (!flow) throw new DomainError('not_found', 'Flow not found');
    return flow;
  }

  /** A tenant's flows, the default first (D2: one default, and those the tenant created). */
  async list(tenantId: string): Promise<FlowEntity[]> {
    return this.db.getRepository(FlowEntity).find({ where: { tenantId }, order: { isDefault: 'DESC', createdAt: 'ASC', id: 'ASC' } });
  }

  /**
   * A new flow of the tenant, from the default flow's branding, then `cmd` (the same rules as update).
   * The console's form, `POST /v1/developer/flows` and the createFlow mutation all come here; `also`
   * writes in the same transaction (the console's own settings entry).
   */
  async create(tenantId: string, cmd: UpdateFlowCommand & { name: string }, editor: FlowEditor, also?: AlsoWithin<FlowEntity>): Promise<FlowEntity> {
    const base = await this.get(tenantId, 'default');
    const flow = Object.assign(new FlowEntity(), { ...base, id: newId('flow'), isDefault: false, name: '', createdAt: new Date() });
    this.apply(flow, cmd);
    if (!flow.name) throw invalid('name must be 1 to 80 characters');
    await this.db.transaction(async (m) => {
      await m.getRepository(FlowEntity).insert(flow);
      await this.audit.append(entry(tenantId, editor, 'flow.created', flow.id, cmd), m);
      await also?.(m, flow);
    });
    return flow;
  }

  /** The console's form, `PATCH /v1/developer/flows/{id}` and the updateFlow mutation all come here. */
  async update(tenantId: string, flowId: string, cmd: UpdateFlowCommand, editor: FlowEditor, also?: AlsoWithin<FlowEntity>): Promise<FlowEntity> {
    const flow = await this.get(tenantId, flowId);
    this.apply(flow, cmd);
    await this.db.transaction(async (m) => {
      await m.getRepository(FlowEntity).save(flow);
      await this.audit.append(entry(tenantId, editor, 'flow.updated', flow.id, cmd), m);
      await also?.(m, flow);
    });
    return flow;
  }

  private apply(flow: FlowEntity, cmd: UpdateFlowCommand): void {
    if (cmd.name !== undefined) {
      const name = textOf('name', cmd.name, 80).trim();
      if (name.length < 1) throw invalid('name must be 1 to 80 characters');
      flow.name = name;
    }
    if (cmd.maxTier !== undefined) {
      if (!(AVAILABLE_TIERS as readonly string[]).includes(cmd.maxTier)) throw invalid(`max_tier must be one of ${AVAILABLE_TIERS.join(', ')}`);
      flow.maxTier = cmd.maxTier;
    }
    if (cmd.displayName !== undefined) {
      const displayName = textOf('display_name', cmd.displayName, 80).trim();
      if (displayName.length < 1) throw invalid('display_name must be 1 to 80 characters');
      flow.displayName = displayName;
    }
    if (cmd.logoUrl !== undefined) {
      if (cmd.logoUrl !== null && !/^https:\/\/[^\s"'<>]+$/.test(textOf('logo_url', cmd.logoUrl, MAX_URL_LENGTH))) throw invalid('logo_url must be an https URL');
      flow.logoUrl = cmd.logoUrl;
    }
    if (cmd.primaryColor !== undefined) {
      if (!COLOR.test(textOf('primary_color', cmd.primaryColor, 7))) throw invalid('primary_color must be a hex colour such as #1f6feb');
      flow.primaryColor = cmd.primaryColor;
    }
    if (cmd.locale !== undefined) {
      if (!LOCALE.test(textOf('locale', cmd.locale, 35))) throw invalid('locale must be a BCP 47 tag such as de-DE');
      flow.locale = cmd.locale;
    }
    if (cmd.redirectUrl !== undefined) {
      if (cmd.redirectUrl !== null && !/^https?:\/\/[^\s"'<>]+$/.test(textOf('redirect_url', cmd.redirectUrl, MAX_URL_LENGTH))) throw invalid('redirect_url must be an http(s) URL');
      flow.redirectUrl = cmd.redirectUrl;
    }
    if (cmd.allowedOrigins !== undefined) {
      if (!Array.isArray(cmd.allowedOrigins)) throw invalid('allowed_origins must be an array of origins');
      if (cmd.allowedOrigins.length > MAX_ALLOWED_ORIGINS) throw invalid(`allowed_origins holds at most ${MAX_ALLOWED_ORIGINS} origins`);
      flow.allowedOrigins = [...new Set(cmd.allowedOrigins.map((o) => parseOrigin(textOf('allowed_origins', o, MAX_URL_LENGTH))))];
    }
    if (cmd.digitalIdEnabled !== undefined) {
      if (typeof cmd.digitalIdEnabled !== 'boolean') throw invalid('digital_id must be true or false');
      flow.digitalIdEnabled = cmd.digitalIdEnabled;
    }
  }
}

function entry(tenantId: string, editor: FlowEditor, action: string, flowId: string, cmd: UpdateFlowCommand) {
  const fields = (Object.keys(FIELD_NAMES) as (keyof UpdateFlowCommand)[]).filter((k) => cmd[k] !== undefined).map((k) => FIELD_NAMES[k]);
  return { tenantId, livemode: editor.livemode, action, subjectId: flowId, detail: { fields, ...editor.who } };
}
