import type { ListId, SubjectType } from '../../entities/list-snapshot.document';

export interface ScreeningQuery {
  fullName: string;
  /** YYYY or YYYY-MM-DD */
  birthDate?: string;
  /** ISO 3166 alpha-2 */
  nationality?: string;
}

export interface MatchReason {
  feature: string;
  score: number;
  detail: string;
}

/** snake_case on purpose: this is the API shape session results carry. */
export interface SanctionsHit {
  list: ListId;
  entry_id: string;
  /** The list's own reference of the entry (see SanctionsEntry.reference). */
  reference: string;
  programme: string;
  subject_type: SubjectType;
  matched_name: string;
  score: number;
  reasons: MatchReason[];
  list_version: string;
}
