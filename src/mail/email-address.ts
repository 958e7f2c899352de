import type { SecretBox } from '../crypto/secret-box';
import { hasUnstorableCharacters } from '../validation/postgres-text';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();
export const isEmail = (email: string): boolean => EMAIL.test(normaliseEmail(email)) && normaliseEmail(email).length <= 254 && !hasUnstorableCharacters(email);
/**
 * The lookup hash of an address: users.email_hash, email_codes.email_hash and mail_messages.to_hash
 * all use this one function, so a purge finds every row of the address (two prefixes once left the
 * outbox behind).
 */
export function emailLookupHash(box: Pick<SecretBox, 'hmac'>, email: string): string {
  return box.hmac(`email:${normaliseEmail(email)}`);
}
