import { DomainError } from '../errors';
import type { FlowService } from '../flows/flow.service';
import type { HostedFlowService } from './hosted-flow.service';
import { COMPLETING_STATUSES, type SessionStatus } from '../sessions/session-status';
import type { SessionService } from '../sessions/session.service';
import { systemClock, type Clock } from '../clock';

/** Why a verification cannot be kept; each is a page with this code (web/accounts/keep.router.ts). */
export type KeepRefusal = 'link_invalid' | 'not_finished' | 'kept_by_another_account' | 'user_restricted';

export type KeptVerification = { sessionId: string; tenantName: string; status: string };

/** How long after the session ended it can still be kept (issue #25 finding 4). */
export const KEEP_WINDOW_MS = 30 * 60 * 1000;

/**
 * "Keep this verification in your account" at the end of the hosted flow (docs/accounts-and-oidc.md,
 * "Keeping a verification"). The hosted page proves where the person comes from with its page
 * credential, and that it is the browser that captured with the keep secret its submit was given
 * (anyone else holding the hosted URL can open a page credential, never that secret). They then
 * sign in (src/oidc/first-party-sign-in.ts), the secret is spent, and the session is bound to them
 * by SessionService.bindFinished, the one place that binds a finished session. All of it only
 * within 30 minutes of the session's completion.
 */
export class KeepVerificationService {
  constructor(
    private readonly hosted: Pick<HostedFlowService, 'authenticate' | 'keepSecretMatches' | 'spendKeepSecret'>,
    private readonly sessions: Pick<SessionService, 'bindFinished' | 'boundTo'>,
    private readonly flows: Pick<FlowService, 'get'>,
    private readonly now: Clock = systemClock,
  ) {}

  /**
   * Before anyone is asked to sign in: the hosted page's credential names this session, its flow
   * has ended less than 30 minutes ago, and the keep secret is the capturing browser's, unspent.
   * A forged, expired or other session's credential, a missing, wrong or spent keep secret, and a
   * late keep are `link_invalid`.
   */
  async check(sessionId: unknown, credential: unknown, keepSecret: unknown): Promise<KeepRefusal | null> {
    if (typeof sessionId !== 'string' || typeof credential !== 'string' || credential.length > 200) return 'link_invalid';
    try {
      const s = await this.hosted.authenticate(`Bearer ${credential}`, sessionId);
      if (!COMPLETING_STATUSES.includes(s.status as SessionStatus)) return 'not_finished';
      if (!s.completedAt || this.now().getTime() - s.completedAt.getTime() > KEEP_WINDOW_MS) return 'link_invalid';
      if (typeof keepSecret !== 'string' || !/^hks_[A-Za-z0-9]{32}$/.test(keepSecret)) return 'link_invalid';
      return (await this.hosted.keepSecretMatches(sessionId, keepSecret)) ? null : 'link_invalid';
    } catch (err) {
      if (err instanceof DomainError) return 'link_invalid';
      throw err;
    }
  }

  /**
   * The signed-in user keeps the session (checked by `check` before they signed in). The keep
   * secret is spent first, so the binding works once whatever its outcome.
   */
  async keep(sessionId: string, userId: string): Promise<{ kept: KeptVerification } | { refused: KeepRefusal }> {
    try {
      if (!(await this.hosted.spendKeepSecret(sessionId, new Date(this.now().getTime() - KEEP_WINDOW_MS)))) return { refused: 'link_invalid' };
      const outcome = await this.sessions.bindFinished(sessionId, userId);
      if ('refused' in outcome) return { refused: outcome.refused === 'not_finished' ? 'not_finished' : 'kept_by_another_account' };
      return { kept: await this.describe(outcome.bound) };
    } catch (err) {
      if (err instanceof DomainError && err.code === 'user_restricted') return { refused: 'user_restricted' };
      if (err instanceof DomainError && err.code === 'not_found') return { refused: 'link_invalid' };
      throw err;
    }
  }

  /** What the page after keeping shows; null unless the session is kept by this user. */
  async keptBy(sessionId: string, userId: string): Promise<KeptVerification | null> {
    const s = await this.sessions.boundTo(sessionId, userId);
    return s ? this.describe(s) : null;
  }

  private async describe(s: { id: string; tenantId: string; flowId: string; status: string }): Promise<KeptVerification> {
    const flow = await this.flows.get(s.tenantId, s.flowId).catch(() => null);
    return { sessionId: s.id, tenantName: flow?.displayName ?? '', status: s.status };
  }
}
