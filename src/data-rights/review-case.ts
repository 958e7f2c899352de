// A review case's shape, apart from the service that keeps it and the settlement that closes it (both use it).

export type ReviewCaseStatus = 'open' | 'decided';
export type ReviewCaseDecision = 'upheld' | 'approved' | 'declined';

/** A user's request that a person look again at an automated decision about them (docs/data-rights.md). */
export type ReviewCase = {
  id: string;
  userId: string;
  sessionId: string;
  dsrJobId: string;
  reason: string;
  status: ReviewCaseStatus;
  decision: ReviewCaseDecision | null;
  note: string | null;
  createdAt: Date;
  decidedAt: Date | null;
};
