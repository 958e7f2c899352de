import type { Readable } from 'node:stream';
import type { AuditLogService } from '../audit/audit-log.service';
import { DomainError } from '../errors';
import { EVIDENCE_CLASSES } from './artifact-classes';
import type { SignedLinks } from '../links/signed-links';
import type { EvidenceVault } from './evidence-vault';
import { systemClock, type Clock } from '../clock';
import type { Actor } from '../auth/actor';

/** Signs links to a session's artifacts, for a read that may carry them. */
export type EvidenceSigner = (artifactIds: readonly string[] | undefined) => string[];

/** An opened artifact: its clear bytes stream from the store (`sizeBytes` long), decrypted on the way. */
export type OpenedEvidence = { contentType: string; body: Readable; sizeBytes: number; sha256: string };

/**
 * A console member opening evidence of their tenant (docs/console.md): another tenant's artifact is
 * refused like a bad link, and the open is audited with the member. `signInId` names the console
 * sign-in the link was made for: a console link is signed for that sign-in only.
 */
export type EvidenceViewer = { memberId: string; tenantId: string; signInId: string };

/**
 * What a console link's signature covers: the artifact and the sign-in it was shown to. A console
 * link is therefore no bearer link: `/v1/evidence/{id}` checks the artifact's own subject and refuses
 * it, and another sign-in (another member, or the same after signing out) cannot open it (issue 40, finding 8).
 */
const consoleSubject = (artifactId: string, signInId: string): string => `console:${signInId}:${artifactId}`;

/**
 * The data-rights rule on a session's evidence, asked each time a link is opened: null when it may
 * be read, else the error a tenant's read of the session would get now (`user_restricted`, or
 * `not_found` once its user is deleted). The session's binding (`userId`) is read with the artifact's row,
 * in the open's one query. A link handed out before a restriction or an erasure stops
 * working at that moment, not when it expires (issue #25, finding 7).
 */
export type EvidenceReadGuard = (session: { id: string; userId: string | null }) => Promise<DomainError | null>;

/** Signed evidence links: which artifacts get one, and what opening one does (checks, audit, bytes). */
export class EvidenceAccessService {
  constructor(
    private readonly audit: AuditLogService,
    private readonly vault: EvidenceVault,
    private readonly links: SignedLinks,
    private readonly guard: EvidenceReadGuard,
    private readonly now: Clock = systemClock,
  ) {}

  /** A fresh link's signature for the console's evidence route, valid with console sign-in `signInId` only. */
  consoleQuery(artifactId: string, signInId: string): string {
    return this.links.query(consoleSubject(artifactId, signInId));
  }

  /** Fresh links for a tenant-key read; a client_secret read never calls this. */
  urlsFor(artifactIds: readonly string[] | undefined): string[] {
    return (artifactIds ?? []).map((id) => this.links.url(id));
  }

  /**
   * Who gets evidence links with a session read: tenant keys only, never a browser's client_secret,
   * a page credential or a user token. The signer for `actor`, or undefined (the read carries none).
   * Both surfaces ask here (rest-adapter/sessions.routes.ts, schema/session.resolver.ts).
   */
  signerFor(actor: Pick<Actor, 'kind'> | null | undefined): EvidenceSigner | undefined {
    return actor?.kind === 'tenant_key' ? (ids) => this.urlsFor(ids) : undefined;
  }

  /**
   * Opens one link. A tampered or expired link is `forbidden` (403), an unknown artifact the same
   * (a link is its own credential: no existence oracle), a purged one `gone` (410). Every open that
   * returns bytes or `gone` is written to the tenant's audit log. A valid link to the evidence of a
   * restricted or deleted user gets that refusal (the guard), and nothing is read.
   */
  async open(artifactId: string, expires: string | undefined, sig: string | undefined, requestId: string, viewer?: EvidenceViewer): Promise<OpenedEvidence | 'forbidden' | 'gone' | DomainError> {
    if (!/^art_[A-Za-z0-9]{16,}$/.test(artifactId)) return 'forbidden';
    if (this.links.check(viewer ? consoleSubject(artifactId, viewer.signInId) : artifactId, expires, sig) !== 'valid') return 'forbidden';
    const found = await this.vault.findWithSessionUser(artifactId);
    const record = found?.record;
    if (!found || !record || !EVIDENCE_CLASSES.includes(record.class)) return 'forbidden';
    if (viewer && record.tenantId !== viewer.tenantId) return 'forbidden';
    const refusal = await this.guard({ id: record.sessionId, userId: found.sessionUserId });
    if (refusal) return refusal;
    const { body } = await this.vault.stream(record);
    try {
      // Grouped: concurrent opens of one tenant are audited in one transaction, not queued one by one on the log's lock (bench:hosted).
      await this.audit.appendGrouped({
        tenantId: record.tenantId,
        livemode: record.livemode,
        action: body ? 'evidence.opened' : 'evidence.open_after_purge',
        subjectId: record.id,
        detail: { session_id: record.sessionId, class: record.class, request_id: requestId, ...(viewer ? { member_id: viewer.memberId } : {}) },
        at: this.now(),
      });
    } catch (err) {
      body?.destroy(); // an open that is not audited is not served: let the store's stream go
      throw err;
    }
    if (!body) return 'gone';
    return { contentType: record.contentType, body, sizeBytes: record.sizeBytes, sha256: record.sha256 };
  }
}

export const evidenceError = (what: 'forbidden' | 'gone'): DomainError =>
  what === 'gone' ? new DomainError('gone', 'This evidence was purged under the retention policy') : new DomainError('link_invalid', 'This evidence link is not valid or has expired');
