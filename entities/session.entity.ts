import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { SessionResult } from './session-result.document';

/**
 * A verification session. The result is one typed jsonb document rather than result/check tables:
 * it is written once per decision, always read whole with its session, and never queried by check,
 * so a join per read would buy nothing and cost a round trip on the hottest path.
 */
@Entity({ name: 'sessions' })
export class SessionEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'tenant_id' })
  tenantId: string;

  @Column('boolean')
  livemode: boolean;

  @Column('text', { name: 'flow_id' })
  flowId: string;

  @Column('text')
  tier: string;

  @Column('text')
  status: string;

  @Column('text', { name: 'reference_id', nullable: true })
  referenceId: string | null;

  @Column('text', { name: 'redirect_url', nullable: true })
  redirectUrl: string | null;

  @Column('text')
  locale: string;

  @Column('jsonb')
  metadata: Record<string, unknown>;

  @Column('jsonb', { nullable: true })
  result: SessionResult | null;

  @Column('text', { name: 'client_secret_hash' })
  clientSecretHash: string;

  /** The client_secret minted for the mobile app at the hosted page's T5 handoff (hash only); null until then. */
  @Column('text', { name: 'app_client_secret_hash', nullable: true })
  appClientSecretHash?: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt: Date | null;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  /** The end user this session verified, when bound (docs/accounts-and-oidc.md, "Binding sessions to users"). */
  @Column('text', { name: 'user_id', nullable: true })
  userId: string | null;

  /** The session's tenant's pairwise subject of that user: what the tenant sees as `user_sub`. */
  @Column('text', { name: 'user_sub', nullable: true })
  userSub: string | null;
}
