import type { ChainedFields } from '../../entities/audit-canonical';

/** What a writer gives: a tenant entry (tenantId and livemode) or a service entry (tenantId null). */
export type AuditEntryInput = {
  tenantId: string | null;
  livemode: boolean | null;
  action: string;
  /** The id the entry is about (a session, artifact, key, endpoint, tenant...). */
  subjectId: string;
  /** Ids, counts, hashes, reasons: never personal data (checked). */
  detail?: Record<string, unknown>;
  /** Defaults to the service's clock. */
  at?: Date;
};

export type AppendedEntry = ChainedFields & { hash: string };
