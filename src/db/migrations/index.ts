import { InitialSchema1763780000000 } from './1763780000000-initial-schema';
import { CscaCertificates1763790700000 } from './1763790700000-csca-certificates';
import { Webhooks1763791000000 } from './1763791000000-webhooks';

/** Every migration in order. Schema changes are migrations, never `synchronize`. */
export const MIGRATIONS = [InitialSchema1763780000000, CscaCertificates1763790700000, Webhooks1763791000000];
