import type { DataSource } from 'typeorm';
import { updatedRows } from '../db/updated-rows';
import { SessionSql } from '../sessions/session.sql';

export type DigitalIdRequestStatus = 'pending' | 'verified' | 'failed' | 'error';
export type DigitalIdChannel = 'dc_api' | 'cross_device';

/** How an answer fared, without personal data: what was verified, or the step that failed. */
export type DigitalIdOutcome =
  | { format: string; credential_type: string; issuer: string; issuer_country: string | null; verified: string[] }
  | { reason: string; detail: string };

export interface DigitalIdRequestRow {
  readonly id: string;
  readonly sessionId: string;
  readonly tenantId: string;
  readonly tier: string;
  readonly livemode: boolean;
  readonly nonce: string;
  readonly state: string;
  readonly encryptionKeySealed: string;
  readonly status: DigitalIdRequestStatus;
  readonly channel: DigitalIdChannel | null;
  readonly outcome: DigitalIdOutcome | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly answeredAt: Date | null;
  /** What the request told the wallet; null on rows from before they were kept (then the configuration decides). */
  readonly binding: DigitalIdRequestBinding | null;
}

/**
 * What a request told the wallet and its answer is verified against: the client identifier (`x509_san_dns:`,
 * `x509_hash:` or `redirect_uri:`), the response URI, the page origin of a same-device answer, and the request
 * object served at `request_uri`. Kept when the request is made, so a change of the verifier key or public URL
 * within the request's 10 minutes does not turn its honest answer into a mismatch.
 */
export interface DigitalIdRequestBinding {
  readonly clientId: string;
  readonly responseUri: string;
  readonly expectedOrigin: string;
  /** The JWT served at `request_uri`: signed by the verifier key of the time, or `alg: none` under `redirect_uri:`. */
  readonly requestObject: string;
}

type Row = {
  id: string;
  session_id: string;
  tenant_id: string;
  tier: string;
  livemode: boolean;
  nonce: string;
  state: string;
  encryption_key_sealed: string;
  status: DigitalIdRequestStatus;
  channel: DigitalIdChannel | null;
  outcome: DigitalIdOutcome | null;
  created_at: Date | string;
  expires_at: Date | string;
  answered_at: Date | string | null;
  client_id: string | null;
  response_uri: string | null;
  expected_origin: string | null;
  request_object: string | null;
};

const SELECT = `SELECT r.id, r.session_id, s.tenant_id, s.tier, s.livemode, r.nonce, r.state, r.encryption_key_sealed, r.status, r.channel, r.outcome,
                       r.created_at, r.expires_at, r.answered_at, r.client_id, r.response_uri, r.expected_origin, r.request_object
                  FROM digital_id_requests r ${SessionSql.scopeJoin('s', 'r.session_id')}`;

const toRequest = (r: Row): DigitalIdRequestRow => ({
  id: r.id,
  sessionId: r.session_id,
  tenantId: r.tenant_id,
  tier: r.tier,
  livemode: r.livemode,
  nonce: r.nonce,
  state: r.state,
  encryptionKeySealed: r.encryption_key_sealed,
  status: r.status,
  channel: r.channel,
  outcome: r.outcome,
  createdAt: new Date(r.created_at),
  expiresAt: new Date(r.expires_at),
  answeredAt: r.answered_at === null ? null : new Date(r.answered_at),
  binding:
    r.client_id !== null && r.response_uri !== null && r.expected_origin !== null && r.request_object !== null
      ? { clientId: r.client_id, responseUri: r.response_uri, expectedOrigin: r.expected_origin, requestObject: r.request_object }
      : null,
});

/** The OpenID4VP requests hosted sessions sent, and how each was answered (docs/digital-ids.md). */
export class DigitalIdRequestRepository {
  constructor(private readonly db: DataSource) {}

  async insert(row: { id: string; sessionId: string; nonce: string; state: string; encryptionKeySealed: string; createdAt: Date; expiresAt: Date; binding: DigitalIdRequestBinding }): Promise<void> {
    const b = row.binding;
    await this.db.query(
      `INSERT INTO digital_id_requests (id, session_id, nonce, state, encryption_key_sealed, created_at, expires_at, client_id, response_uri, expected_origin, request_object)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [row.id, row.sessionId, row.nonce, row.state, row.encryptionKeySealed, row.createdAt, row.expiresAt, b.clientId, b.responseUri, b.expectedOrigin, b.requestObject],
    );
  }

  async find(id: string): Promise<DigitalIdRequestRow | null> {
    const rows: Row[] = await this.db.query(`${SELECT} WHERE r.id = $1`, [id]);
    return rows[0] ? toRequest(rows[0]) : null;
  }

  /** The session's most recent request, whatever its state (the page shows it). */
  async latest(sessionId: string): Promise<DigitalIdRequestRow | null> {
    const rows: Row[] = await this.db.query(`${SELECT} WHERE r.session_id = $1 ORDER BY r.created_at DESC, r.id DESC LIMIT 1`, [sessionId]);
    return rows[0] ? toRequest(rows[0]) : null;
  }

  /** The session's most recently answered request: the one its `digital_id` check reads. */
  async latestAnswered(sessionId: string): Promise<DigitalIdRequestRow | null> {
    const rows: Row[] = await this.db.query(`${SELECT} WHERE r.session_id = $1 AND r.status <> 'pending' ORDER BY r.answered_at DESC, r.id DESC LIMIT 1`, [sessionId]);
    return rows[0] ? toRequest(rows[0]) : null;
  }

  /** Takes a pending request for one answer: false when another answer (or its expiry) came first. */
  async claim(id: string, channel: DigitalIdChannel, at: Date): Promise<boolean> {
    const out: unknown = await this.db.query(
      `UPDATE digital_id_requests SET channel = $2, answered_at = $3, status = 'error', outcome = '{"reason":"answer_in_progress","detail":"the answer is being verified"}'
        WHERE id = $1 AND status = 'pending' AND channel IS NULL AND expires_at > $3 RETURNING id`,
      [id, channel, at],
    );
    return updatedRows(out).length > 0;
  }

  async settle(id: string, status: Exclude<DigitalIdRequestStatus, 'pending'>, outcome: DigitalIdOutcome, at: Date): Promise<void> {
    await this.db.query(`UPDATE digital_id_requests SET status = $2, outcome = $3, answered_at = $4 WHERE id = $1`, [id, status, JSON.stringify(outcome), at]);
  }
}
