import { digestsEqual, sha256Hex } from '../ids';

/** The header an operator (our support staff) sends with the ADMIN_API_KEY of the deployment. */
export const OPERATOR_HEADER = 'service-admin-key';

/**
 * Checks the operator credential by comparing SHA-256 digests in constant time. Operator actions
 * (such as an enterprise rate-limit raise) go "through support": tenants' own keys never pass.
 */
export function isOperatorCredential(presented: string | undefined, configured: string | undefined): boolean {
  if (!configured || !presented) return false;
  return digestsEqual(sha256Hex(presented), sha256Hex(configured));
}
