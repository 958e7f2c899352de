/**
 * The social service's data-rights contract (docs/data-rights.md, "The social upstream"): the
 * gateway fronts the social service at /v1/social, /v1/profiles and /v1/network, and that service
 * holds the user's posts, comments, likes, follows and messages. Exports read them as NDJSON
 * streams; erasure and objection are passed on to it.
 */
export const SOCIAL_COLLECTIONS = ['posts', 'comments', 'likes', 'follows', 'messages'] as const;
export type SocialCollection = (typeof SOCIAL_COLLECTIONS)[number];

export type SocialRecord = Record<string, unknown>;

/** Ties an upstream call to its request, so the upstream can de-duplicate a retried call. */
export type DsrReference = { dsrId: string };

export interface SocialDataRights {
  /** Whether a real upstream is configured (the export says so in its manifest). */
  readonly configured: boolean;
  /** Every record of the collection authored by the user, as the upstream streams it. */
  read(userId: string, collection: SocialCollection): AsyncIterable<SocialRecord>;
  /** Asks the upstream to erase everything of the user. */
  erase(userId: string, ref: DsrReference): Promise<void>;
  /** Records the user's objection to a kind of processing (`feed_ranking`). */
  object(userId: string, processing: string, ref: DsrReference): Promise<void>;
}

/** No upstream configured: nothing to read, nothing to pass on (the export's social entries are present and empty). */
export class NoSocialUpstream implements SocialDataRights {
  readonly configured = false;
  async *read(): AsyncIterable<SocialRecord> {
    /* nothing upstream */
  }
  async erase(): Promise<void> {}
  async object(): Promise<void> {}
}
