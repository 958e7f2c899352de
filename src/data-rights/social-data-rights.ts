/**
 * The social upstream's part of the data rights (docs/data-rights.md, "The social upstream"): one
 * contract, written in social-upstream.ts; erasure and objection take it from there.
 */
export type { SocialDataRights } from './social-upstream';
