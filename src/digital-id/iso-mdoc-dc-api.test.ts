import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { cborDecode, cborEncode, DeviceRequest } from '@animo-id/mdoc';
import { MISBEHAVIOURS, SimulatedWallet, SPECIMEN_PERSON, type Misbehaviour } from '../../test/helpers/simulated-wallet';
import { pemToDer, TEST_IACA_PEM } from '../../test/helpers/test-pki';
import { isoMdocDcApiRequest, isoMdocSessionTranscript, IsoMdocResponseError, openIsoMdocResponse } from './iso-mdoc-dc-api';
import { requestedCredentialsForTier } from './requested-claims';
import { wrapSessionTranscript } from './session-transcript';
import { verifyIsoMdocAnswer } from './wallet-answer.verifier';

/**
 * ISO/IEC TS 18013-7 Annex C (`org-iso-mdoc` on the Digital Credentials API): the request the service
 * builds, and the simulated wallet's sealed answers opened and verified as the service does, honest and
 * misbehaving. Through the started server: test/e2e/digital-id-iso-mdoc.test.ts.
 */

const ORIGIN = 'https://verify.example.test';
const trust = { iacaRoots: [pemToDer(TEST_IACA_PEM)], sdJwtVcRoots: [pemToDer(TEST_IACA_PEM)], issuerKeys: [] };
const wallet = new SimulatedWallet(SPECIMEN_PERSON);
const fetchStatusListCwt = async (uri: string) => {
  if (uri === `${wallet.statusList.uri}#cwt` && wallet.statusList.cwt) return wallet.statusList.cwt;
  throw new Error('not found');
};

function newRequest(tier = 1) {
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const publicJwk = key.publicKey.export({ format: 'jwk' });
  const request = isoMdocDcApiRequest({ tier, nonce: randomBytes(24), recipient: publicJwk });
  return { request, privateJwk: key.privateKey.export({ format: 'jwk' }) as JsonWebKey, publicJwk };
}

/** One request, the wallet's answer from a page of `pageOrigin`, opened and verified for ORIGIN. */
async function round(credential: 'mdl' | 'pid_mdoc', misbehave?: Misbehaviour, pageOrigin = ORIGIN): Promise<string> {
  const { request, privateJwk } = newRequest();
  const response = await wallet.answerIsoMdoc(request.data, pageOrigin, { credential, misbehave });
  const transcript = isoMdocSessionTranscript(request.data.encryptionInfo, ORIGIN);
  try {
    const deviceResponse = await openIsoMdocResponse(response, privateJwk, transcript);
    const verified = await verifyIsoMdocAnswer({ deviceResponse, sessionTranscriptBytes: wrapSessionTranscript(transcript), tier: 1, trust, now: new Date(), fetchStatusListCwt });
    return `accepted:${verified.profileId}`;
  } catch (error) {
    if (error instanceof IsoMdocResponseError) return `not opened: ${error.message}`;
    return (error as { reason?: string }).reason ?? `thrown:${String(error)}`;
  }
}

describe('ISO 18013-7 Annex C requests and answers', () => {
  it("asks with a DeviceRequest for the tier's mdoc elements only, and an EncryptionInfo holding the request's key and nonce", () => {
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'jwk' });
    const nonce = randomBytes(24);
    const { protocol, data } = isoMdocDcApiRequest({ tier: 1, nonce, recipient: key });
    expect(protocol).toBe('org-iso-mdoc');
    expect(data.deviceRequest).toMatch(/^[A-Za-z0-9_-]+$/);
    const asked = DeviceRequest.parse(Buffer.from(data.deviceRequest, 'base64url')).docRequests.map((d) => ({
      docType: d.itemsRequest.data.docType,
      nameSpaces: Object.fromEntries([...d.itemsRequest.data.nameSpaces].map(([ns, elements]) => [ns, [...elements.keys()]])),
    }));
    const mdocs = requestedCredentialsForTier(1).filter((c) => c.format === 'mso_mdoc');
    expect(asked).toEqual(mdocs.map((c) => ({ docType: c.credentialType, nameSpaces: { [c.namespace!]: [...c.elements] } })));
    expect(asked.map((a) => a.docType)).toEqual(['org.iso.18013.5.1.mDL', 'eu.europa.ec.eudi.pid.1']);
    expect(asked[0].nameSpaces['org.iso.18013.5.1']).not.toContain('nationality');

    const [kind, params] = cborDecode(Buffer.from(data.encryptionInfo, 'base64url')) as [string, Map<string, unknown>];
    expect(kind).toBe('dcapi');
    expect(Buffer.from(params.get('nonce') as Uint8Array)).toEqual(nonce);
    const cose = params.get('recipientPublicKey') as Map<number, unknown>;
    expect([cose.get(1), cose.get(-1)]).toEqual([2, 1]); // EC2, P-256
    expect(Buffer.from(cose.get(-2) as Uint8Array).toString('base64url')).toBe(key.x);
    expect(Buffer.from(cose.get(-3) as Uint8Array).toString('base64url')).toBe(key.y);
  });

  it('opens and verifies an honest answer with the mDL and with the PID as mdoc', async () => {
    expect(await round('mdl')).toBe('accepted:mdl');
    expect(await round('pid_mdoc')).toBe('accepted:pid_mdoc');
  });

  it('refuses every misbehaviour with its reason, accepting none', async () => {
    const expected: Record<Misbehaviour, string> = {
      tampered_element: 'digest_mismatch',
      wrong_nonce: 'device_auth_invalid',
      expired: 'credential_expired',
      untrusted_issuer: 'untrusted_issuer',
      other_transcript: 'device_auth_invalid',
      revoked: 'credential_revoked',
      element_not_requested: 'element_not_requested',
    };
    const verdicts: Record<string, string> = {};
    for (const misbehave of MISBEHAVIOURS) verdicts[misbehave] = await round('mdl', misbehave);
    expect(verdicts).toEqual(expected);
  });

  it('does not open an answer sealed on a page of another origin, for another request, or that is not an EncryptedResponse', async () => {
    expect(await round('mdl', undefined, 'https://phishing.example')).toBe('not opened: response does not decrypt under this request');
    const { request } = newRequest();
    const other = newRequest();
    const sealedForOther = await wallet.answerIsoMdoc(request.data, ORIGIN, { credential: 'mdl' });
    await expect(openIsoMdocResponse(sealedForOther, other.privateJwk, isoMdocSessionTranscript(request.data.encryptionInfo, ORIGIN))).rejects.toThrow('does not decrypt');
    for (const junk of ['', 'not base64!', Buffer.from('plain').toString('base64url'), Buffer.from(cborEncode(['dcapi', new Map([['enc', 'x']])])).toString('base64url'), 42, null]) {
      await expect(openIsoMdocResponse(junk, other.privateJwk, new Uint8Array([0x80]))).rejects.toBeInstanceOf(IsoMdocResponseError);
    }
  });
});
