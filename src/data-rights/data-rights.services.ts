import type { BiometricPurgeService } from './biometric-purge.service';
import type { ObjectionService } from './objection.service';
import type { ProfileChangeService } from './profile-change.service';
import type { ReviewCaseService } from './review-case.service';
import type { UserAccessGate } from './user-access.gate';
import type { UserErasureService } from './user-erasure.service';
import type { UserRestrictionService } from './user-restriction.service';

/** The end user's data-rights use cases besides export (docs/data-rights.md), built once in app/container.ts. */
export type DataRightsServices = {
  erasure: UserErasureService;
  biometrics: BiometricPurgeService;
  restriction: UserRestrictionService;
  objections: ObjectionService;
  reviews: ReviewCaseService;
  profiles: ProfileChangeService;
  gate: UserAccessGate;
};
