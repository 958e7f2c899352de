import { createHmac } from 'node:crypto';
import { HOSTED_PAGE_LINK, SignedLinks } from '../../links/signed-links';
import { DSR_CONFIRMATION_LINK } from './delegated-request.service';

describe('the delegated request confirmation link', () => {
  const key = Buffer.from('k'.repeat(48));

  it('keeps the form of the links already mailed, and refuses what is not a token', () => {
    const confirmations = SignedLinks.withKey(DSR_CONFIRMATION_LINK, 'https://verify.example', key);
    const url = new URL(confirmations.url('dsr_AAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(url.pathname).toBe('/account/requests/dsr_AAAAAAAAAAAAAAAAAAAAAAAA');
    const token = url.searchParams.get('token')!;
    // Users may still hold a message from before: its token was the HMAC of "dsr-confirm:<id>".
    expect(token).toBe(createHmac('sha256', key).update('dsr-confirm:dsr_AAAAAAAAAAAAAAAAAAAAAAAA').digest('base64url'));
    expect(confirmations.verify('dsr_AAAAAAAAAAAAAAAAAAAAAAAA', token)).toBe(true);
    for (const notAToken of [undefined, null, 42, [token], { token }, '', `${token}=`]) expect(confirmations.verify('dsr_AAAAAAAAAAAAAAAAAAAAAAAA', notAToken)).toBe(false);
    expect(SignedLinks.withKey(HOSTED_PAGE_LINK, 'https://verify.example', key).verify('dsr_AAAAAAAAAAAAAAAAAAAAAAAA', token)).toBe(false);
  });

});
