/**
 * The social upstream's part of the data rights (docs/data-rights.md, "The social upstream"): the
 * gateway asks it to erase a user's posts, comments, likes, follows and messages, and passes on
 * objections to processing. Null when no upstream is configured: nothing is held there then.
 */
export interface SocialDataRights {
  erase(userId: string): Promise<void>;
  object(userId: string, processing: string): Promise<void>;
}
