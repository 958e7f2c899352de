import { bacKeys, externalAuthenticateData, sessionKeysFromResponse } from '../src/bac';
import { fromHex, toHex } from '../src/bytes';
import { mrzInformation } from '../src/mrz-key';
import { SecureMessaging, tdesCipher } from '../src/secure-messaging';

/**
 * ICAO Doc 9303 part 11, Appendix D (worked example: Basic Access Control and secure messaging),
 * document number L898902C<, date of birth 690806, expiry 940623. Every figure below is the
 * published one; the implementation is checked against each step.
 */

const MRZ = { documentNumber: 'L898902C', dateOfBirth: '690806', dateOfExpiry: '940623' };
const RND_IC = fromHex('4608F91988702212');
const RND_IFD = fromHex('781723860C06C226');
const K_IFD = fromHex('0B795240CB7049B01C19B33E32804F0B');
const CHIP_RESPONSE = fromHex('46B9342A41396CD7386BF5803104D7CEDC122B9132139BAF2EEDC94EE178534F2F2D235D074D7449');

describe('BAC worked example (ICAO 9303-11 Appendix D.3)', () => {
  const keys = bacKeys(MRZ);

  it('builds the MRZ information with check digits and the key seed', () => {
    expect(mrzInformation(MRZ)).toBe('L898902C<369080619406236');
    expect(toHex(keys.seed)).toBe('239AB9CB282DAF66231DC5A4DF6BFBAE');
  });

  it('derives Kenc and Kmac with DES parity', () => {
    expect(toHex(keys.kEnc)).toBe('AB94FDECF2674FDFB9B391F85D7F76F2');
    expect(toHex(keys.kMac)).toBe('7962D9ECE03D1ACD4C76089DCE131543');
  });

  it('makes the EXTERNAL AUTHENTICATE data: E.IFD || M.IFD', () => {
    expect(toHex(externalAuthenticateData(keys, RND_IC, RND_IFD, K_IFD))).toBe(
      '72C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F2' + '5F1448EEA8AD90A7',
    );
  });

  it('checks the chip answer and derives KSenc, KSmac and the SSC', () => {
    const session = sessionKeysFromResponse(keys, CHIP_RESPONSE, RND_IC, RND_IFD, K_IFD);
    expect(toHex(session.kIc)).toBe('0B4F80323EB3191CB04970CB4052790B');
    expect(toHex(session.ksEnc)).toBe('979EC13B1CBFE9DCD01AB0FED307EAE5');
    expect(toHex(session.ksMac)).toBe('F1CB1F1FB5ADF208806B89DC579DC1F8');
    expect(toHex(session.ssc)).toBe('887022120C06C226');
  });

  it('refuses a chip answer whose MAC does not verify', () => {
    const bad = Uint8Array.from(CHIP_RESPONSE);
    bad[39] ^= 1;
    expect(() => sessionKeysFromResponse(keys, bad, RND_IC, RND_IFD, K_IFD)).toThrow(expect.objectContaining({ code: 'secure_messaging' }));
  });
});

describe('secure messaging worked example (ICAO 9303-11 Appendix D.4)', () => {
  const sm = new SecureMessaging(tdesCipher(fromHex('979EC13B1CBFE9DCD01AB0FED307EAE5'), fromHex('F1CB1F1FB5ADF208806B89DC579DC1F8')), fromHex('887022120C06C226'));

  it('SELECT EF.COM, then READ BINARY of its first 4 bytes and the remaining 18: the published APDUs and plaintexts', () => {
    expect(toHex(sm.wrap({ cla: 0x00, ins: 0xa4, p1: 0x02, p2: 0x0c, data: fromHex('011E') }))).toBe('0CA4020C158709016375432908C044F68E08BF8B92D635FF24F800');
    expect(sm.unwrap(fromHex('990290008E08FA855A5D4C50A8ED9000'))).toEqual({ data: new Uint8Array(0), sw: 0x9000 });

    expect(toHex(sm.wrap({ cla: 0x00, ins: 0xb0, p1: 0x00, p2: 0x00, le: 4 }))).toBe('0CB000000D9701048E08ED6705417E96BA5500');
    const first = sm.unwrap(fromHex('8709019FF0EC34F992265199029000' + '8E08AD55CC17140B2DED9000'));
    expect({ data: toHex(first.data), sw: first.sw }).toEqual({ data: '60145F01', sw: 0x9000 });

    expect(toHex(sm.wrap({ cla: 0x00, ins: 0xb0, p1: 0x00, p2: 0x04, le: 0x12 }))).toBe('0CB000040D9701128E082EA28A70F3C7B53500');
    const rest = sm.unwrap(fromHex('871901FB9235F4E4037F2327DCC8964F1F9B8C30F42C8E2FFF224A99029000' + '8E08C8B2787EAEA07D749000'));
    expect({ data: toHex(rest.data), sw: rest.sw }).toEqual({ data: '04303130365F36063034303030305C026175', sw: 0x9000 });
  });

  it('refuses a response whose MAC was altered, and one without a MAC', () => {
    const fresh = () => new SecureMessaging(tdesCipher(fromHex('979EC13B1CBFE9DCD01AB0FED307EAE5'), fromHex('F1CB1F1FB5ADF208806B89DC579DC1F8')), fromHex('887022120C06C226'));
    const a = fresh();
    a.wrap({ cla: 0x00, ins: 0xa4, p1: 0x02, p2: 0x0c, data: fromHex('011E') });
    expect(() => a.unwrap(fromHex('990290008E08FA855A5D4C50A8EC9000'))).toThrow(expect.objectContaining({ code: 'secure_messaging', message: expect.stringContaining('MAC does not verify') }));
    const b = fresh();
    b.wrap({ cla: 0x00, ins: 0xa4, p1: 0x02, p2: 0x0c, data: fromHex('011E') });
    expect(() => b.unwrap(fromHex('990290009000'))).toThrow(expect.objectContaining({ code: 'secure_messaging', message: expect.stringContaining('without DO8E') }));
    const c = fresh();
    c.wrap({ cla: 0x00, ins: 0xa4, p1: 0x02, p2: 0x0c, data: fromHex('011E') });
    expect(() => c.unwrap(fromHex('9000'))).toThrow(expect.objectContaining({ code: 'secure_messaging' }));
  });
});
