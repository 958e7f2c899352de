import type { AlsoWithin } from '../db/also-within';
import { DataSource } from 'typeorm';
import { FlowEntity } from '../../entities';
import { DomainError } from '../errors';
import { newId } from '../ids';
import { AVAILABLE_TIERS } from '../sessions/tiers';

export type UpdateFlowCommand = {
  name?: string;
  /** The highest tier a session of this flow may ask for (DECISIONS.md D2). */
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

/** Flow templates: branding, embedding origins and defaults, changed by the CLI and the updateFlow mutation. */
export class FlowService {
  constructor(private readonly db: DataSource) {}

  async get(tenantId: string, flowId: string): Promise<FlowEntity> {
    const repo = this.db.getRepository(FlowEntity);
    const flow = flowId === 'default' ? await repo.findOneBy({ tenantId, isDefault: true }) : await repo.findOneBy({ tenantId, id: flowId });
    if (!flow) throw new DomainError('not_found', `Flow ${flowId} not found`);
    return flow;
  }

  /** A tenant's flows, the default first (D2: one default, and those the tenant created). */
  async list(tenantId: string): Promise<FlowEntity[]> {
    return this.db.getRepository(FlowEntity).find({ where: { tenantId }, order: { isDefault: 'DESC', createdAt: 'ASC', id: 'ASC' } });
  }

  /** A new flow of the tenant, from the default flow's branding, then `cmd` (the same rules as update). */
  async create(tenantId: string, cmd: UpdateFlowCommand & { name: string }, also?: AlsoWithin<FlowEntity>): Promise<FlowEntity> {
    const base = await this.get(tenantId, 'default');
    const flow = Object.assign(new FlowEntity(), { ...base, id: newId('flow'), isDefault: false, name: '', createdAt: new Date() });
    this.apply(flow, cmd);
    if (!flow.name) throw new DomainError('invalid_request', 'name must be 1 to 80 characters');
    await this.db.transaction(async (m) => {
      await m.getRepository(FlowEntity).insert(flow);
      await also?.(m, flow);
    });
    return flow;
  }

  async update(tenantId: string, flowId: string, cmd: UpdateFlowCommand, also?: AlsoWithin<FlowEntity>): Promise<FlowEntity> {
    const flow = await this.get(tenantId, flowId);
    this.apply(flow, cmd);
    await this.db.transaction(async (m) => {
      await m.getRepository(FlowEntity).save(flow);
      await also?.(m, flow);
    });
    return flow;
  }

  private apply(flow: FlowEntity, cmd: UpdateFlowCommand): void {
    if (cmd.name !== undefined) {
      if (typeof cmd.name !== 'string' || cmd.name.trim().length < 1 || cmd.name.length > 80) throw new DomainError('invalid_request', 'name must be 1 to 80 characters');
      flow.name = cmd.name.trim();
    }
    if (cmd.maxTier !== undefined) {
      if (!(AVAILABLE_TIERS as readonly string[]).includes(cmd.maxTier)) throw new DomainError('invalid_request', `max_tier must be one of ${AVAILABLE_TIERS.join(', ')}`);
      flow.maxTier = cmd.maxTier;
    }
    if (cmd.displayName !== undefined) {
      if (cmd.displayName.trim().length < 1 || cmd.displayName.length > 80) throw new DomainError('invalid_request', 'display_name must be 1 to 80 characters');
      flow.displayName = cmd.displayName.trim();
    }
    if (cmd.logoUrl !== undefined) {
      if (cmd.logoUrl !== null && !/^https:\/\/[^\s"'<>]+$/.test(cmd.logoUrl)) throw new DomainError('invalid_request', 'logo_url must be an https URL');
      flow.logoUrl = cmd.logoUrl;
    }
    if (cmd.primaryColor !== undefined) {
      if (!COLOR.test(cmd.primaryColor)) throw new DomainError('invalid_request', 'primary_color must be a hex colour such as #1f6feb');
      flow.primaryColor = cmd.primaryColor;
    }
    if (cmd.locale !== undefined) {
      if (!LOCALE.test(cmd.locale)) throw new DomainError('invalid_request', 'locale must be a BCP 47 tag such as de-DE');
      flow.locale = cmd.locale;
    }
    if (cmd.redirectUrl !== undefined) {
      if (cmd.redirectUrl !== null && !/^https?:\/\//.test(cmd.redirectUrl)) throw new DomainError('invalid_request', 'redirect_url must be an http(s) URL');
      flow.redirectUrl = cmd.redirectUrl;
    }
    if (cmd.allowedOrigins !== undefined) {
      if (cmd.allowedOrigins.length > MAX_ALLOWED_ORIGINS) throw new DomainError('invalid_request', `allowed_origins holds at most ${MAX_ALLOWED_ORIGINS} origins`);
      flow.allowedOrigins = [...new Set(cmd.allowedOrigins.map(parseOrigin))];
    }
    if (cmd.digitalIdEnabled !== undefined) flow.digitalIdEnabled = cmd.digitalIdEnabled;
  }
}
