import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { MISBEHAVIOURS, SimulatedWallet, type Misbehaviour, type WalletRequest } from '../../test/helpers/simulated-wallet';
import { pemToDer, TEST_IACA_PEM } from '../../test/helpers/test-pki';
import { decryptEcdhEsJwe } from './ecdh-es-jwe';
import { crossDeviceRequestObject, dcApiRequest } from './openid4vp-request';
import type { CredentialProfile } from './requested-claims';
import { jwkThumbprint } from './session-transcript';
import { verifyWalletAnswer, type WalletAnswerInput } from './wallet-answer.verifier';

/**
 * The simulated wallet (test/helpers/simulated-wallet.ts) against the verifier, on both channels and all
 * three credentials: honest answers pass, and every misbehaviour is refused with its own reason.
 */

const ORIGIN = 'https://verify.example.test';
const RESPONSE_URI = 'https://verify.example.test/v1/digital-id/response/vdr_test';
const CLIENT_ID = `redirect_uri:${RESPONSE_URI}`;
const trust = { iacaRoots: [pemToDer(TEST_IACA_PEM)], sdJwtVcRoots: [pemToDer(TEST_IACA_PEM)], issuerKeys: [] };
const CREDENTIALS: ReadonlyArray<CredentialProfile['id']> = ['mdl', 'pid_mdoc', 'pid_sd_jwt'];

const wallet = new SimulatedWallet({
  family_name: 'Mustermann',
  given_name: 'Erika',
  birth_date: '1984-08-12',
  portrait: new Uint8Array(randomBytes(64)),
  document_number: 'T22000129',
  expiry_date: '2031-01-01',
  issuing_country: 'UT',
  nationality: 'DE',
});
const statusLists = new Map<string, string>();
const fetchStatusList = async (uri: string) => {
  if (uri === wallet.statusList.uri && wallet.statusList.token) return wallet.statusList.token;
  const token = statusLists.get(uri);
  if (!token) throw new Error('not found');
  return token;
};
const fetchStatusListCwt = async (uri: string) => {
  if (uri === `${wallet.statusList.uri}#cwt` && wallet.statusList.cwt) return wallet.statusList.cwt;
  throw new Error('not found');
};

/** Runs one request/answer round on a channel and returns the verifier's verdict. */
async function round(channel: 'dc_api' | 'cross_device', credential: CredentialProfile['id'], misbehave?: Misbehaviour, tier = 1): Promise<string> {
  const nonce = randomBytes(16).toString('base64url');
  let input: WalletAnswerInput;
  if (channel === 'dc_api') {
    const request = dcApiRequest({ tier, nonce });
    const answer = await wallet.answerDcApi(request.data as unknown as WalletRequest, ORIGIN, { credential, misbehave });
    input = { vpToken: answer.data.vp_token, tier, nonce, channel: { kind: 'dc_api', origin: ORIGIN }, trust, now: new Date(), fetchStatusList, fetchStatusListCwt };
  } else {
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const publicJwk = { ...key.publicKey.export({ format: 'jwk' }), kid: 'session-key' };
    const requestObject = crossDeviceRequestObject({ tier, nonce, state: 'st', clientId: CLIENT_ID, responseUri: RESPONSE_URI, encryptionJwk: publicJwk });
    const jwe = await wallet.answerDirectPostJwt(requestObject as unknown as WalletRequest, { credential, misbehave });
    const payload = JSON.parse(decryptEcdhEsJwe(jwe, key.privateKey.export({ format: 'jwk' })).toString('utf8'));
    expect(payload.state).toBe('st');
    input = {
      vpToken: payload.vp_token,
      tier,
      nonce,
      channel: { kind: 'cross_device', clientId: CLIENT_ID, responseUri: RESPONSE_URI, encryptionJwkThumbprint: jwkThumbprint(publicJwk) },
      trust,
      now: new Date(),
      fetchStatusList,
      fetchStatusListCwt,
    };
  }
  try {
    const verified = await verifyWalletAnswer(input);
    return `accepted:${verified.profileId}:${verified.result.issuer.name}`;
  } catch (error) {
    return (error as { reason?: string }).reason ?? `thrown:${String(error)}`;
  }
}

const EXPECTED: Record<Misbehaviour, { mdoc: string | null; sdJwt: string }> = {
  tampered_element: { mdoc: 'digest_mismatch', sdJwt: 'digest_mismatch' },
  wrong_nonce: { mdoc: 'device_auth_invalid', sdJwt: 'nonce_mismatch' },
  expired: { mdoc: 'credential_expired', sdJwt: 'credential_expired' },
  untrusted_issuer: { mdoc: 'untrusted_issuer', sdJwt: 'untrusted_issuer' },
  other_transcript: { mdoc: 'device_auth_invalid', sdJwt: 'audience_mismatch' },
  // mdoc: the MSO names a Token Status List (CWT) entry the wallet's issuer set.
  revoked: { mdoc: 'credential_revoked', sdJwt: 'credential_revoked' },
  element_not_requested: { mdoc: 'element_not_requested', sdJwt: 'element_not_requested' },
};

describe('the simulated wallet against the verifier', () => {
  for (const channel of ['dc_api', 'cross_device'] as const) {
    it(`accepts honest answers with each credential on the ${channel} channel`, async () => {
      for (const credential of CREDENTIALS) {
        expect(await round(channel, credential)).toBe(`accepted:${credential}:Test Wallet Issuer`);
      }
    });

    it(`refuses every misbehaviour on the ${channel} channel with its reason, accepting none`, async () => {
      const verdicts: Array<{ misbehave: Misbehaviour; credential: string; verdict: string; expected: string }> = [];
      for (const misbehave of MISBEHAVIOURS) {
        for (const credential of CREDENTIALS) {
          const expected = credential === 'pid_sd_jwt' ? EXPECTED[misbehave].sdJwt : EXPECTED[misbehave].mdoc;
          if (expected === null) continue;
          verdicts.push({ misbehave, credential, verdict: await round(channel, credential, misbehave), expected });
        }
      }
      expect(verdicts.filter((v) => v.verdict.startsWith('accepted'))).toEqual([]);
      expect(verdicts.map((v) => `${v.misbehave}/${v.credential}: ${v.verdict}`)).toEqual(verdicts.map((v) => `${v.misbehave}/${v.credential}: ${v.expected}`));
    });
  }

  it('makes a status list it cannot fetch an error, not a pass', async () => {
    const saved = wallet.statusList.token;
    const unreachable = new SimulatedWallet(wallet.person, { uri: 'https://status.invalid/unreachable', token: null });
    const nonce = 'n-1';
    const request = dcApiRequest({ tier: 1, nonce });
    const answer = await unreachable.answerDcApi(request.data as unknown as WalletRequest, ORIGIN, { credential: 'pid_sd_jwt', misbehave: 'revoked' });
    const failing = async () => {
      throw new Error('connection refused');
    };
    await expect(
      verifyWalletAnswer({ vpToken: answer.data.vp_token, tier: 1, nonce, channel: { kind: 'dc_api', origin: ORIGIN }, trust, now: new Date(), fetchStatusList: failing }),
    ).rejects.toMatchObject({ reason: 'status_unavailable' });
    wallet.statusList.token = saved;
  });

  it('makes an mdoc status list it cannot fetch, or one not signed by the issuer, an error, not a pass', async () => {
    const nonce = 'n-2';
    const request = dcApiRequest({ tier: 1, nonce });
    const answer = await wallet.answerDcApi(request.data as unknown as WalletRequest, ORIGIN, { credential: 'mdl', misbehave: 'revoked' });
    const input = { vpToken: answer.data.vp_token, tier: 1, nonce, channel: { kind: 'dc_api' as const, origin: ORIGIN }, trust, now: new Date() };
    await expect(verifyWalletAnswer({ ...input, fetchStatusListCwt: async () => Promise.reject(new Error('offline')) })).rejects.toMatchObject({ reason: 'status_unavailable' });
    await expect(verifyWalletAnswer(input)).rejects.toMatchObject({ reason: 'status_unavailable' });
    // The list's bytes changed after signing: its signature fails, so the entry is never read.
    const forged = Buffer.from(wallet.statusList.cwt!);
    forged[forged.length - 70] ^= 0x01;
    await expect(verifyWalletAnswer({ ...input, fetchStatusListCwt: async () => forged })).rejects.toMatchObject({ reason: 'status_unavailable' });
  });

  it('asks T3 for nationality and T1 not', async () => {
    const t1 = dcApiRequest({ tier: 1, nonce: 'x' }).data.dcql_query as { credentials: Array<{ claims: Array<{ path: string[] }> }> };
    const t3 = dcApiRequest({ tier: 3, nonce: 'x' }).data.dcql_query as { credentials: Array<{ claims: Array<{ path: string[] }> }> };
    expect(t1.credentials[0].claims.map((c) => c.path[1])).toEqual(['family_name', 'given_name', 'birth_date', 'portrait', 'document_number', 'expiry_date', 'issuing_country']);
    expect(t3.credentials[0].claims.map((c) => c.path[1])).toContain('nationality');
    expect(await round('dc_api', 'pid_sd_jwt', undefined, 3)).toBe('accepted:pid_sd_jwt:Test Wallet Issuer');
  });
});
