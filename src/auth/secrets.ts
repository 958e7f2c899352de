import { randomBase62 } from '../ids';

/** `sk_test_` / `sk_live_` and 40 base62 characters (docs/api-behaviour.md, "Credentials": at least 32). */
export const newApiKey = (livemode: boolean): string => `sk_${livemode ? 'live' : 'test'}_${randomBase62(40)}`;

/** A session's browser credential; it names its session so a lookup needs no scan. */
export const newClientSecret = (sessionId: string): string => `${sessionId}_secret_${randomBase62(32)}`;

export function sessionIdOfClientSecret(secret: string): string | null {
  const m = /^(vses_[A-Za-z0-9]{16,})_secret_[A-Za-z0-9]{32}$/.exec(secret);
  return m ? m[1] : null;
}

export const API_KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9]{32,}$/;
