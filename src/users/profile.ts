/** The fields a verification vouches for: changed only through a rectification request (src/data-rights/profile-change.service.ts). */
export const VERIFIED_FIELDS = ['legal_name', 'date_of_birth', 'nationality'] as const;
export type VerifiedField = (typeof VERIFIED_FIELDS)[number];

/** A user's profile as the user (and whoever the user lets see it) reads it. */
export type Profile = {
  id: string;
  display_name: string | null;
  handle: string | null;
  public_links: string[];
  bio: string | null;
  legal_name: string | null;
  date_of_birth: string | null;
  nationality: string | null;
  state: string;
  objections: { processing: string; objected_at: string }[];
  pending_changes: { id: string; field: VerifiedField; value: string; requested_at: string; dsr_job_id: string }[];
};
