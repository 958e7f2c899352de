import { createHash } from 'node:crypto';
import { expectedResults, fixture, vectorInput, VectorInput } from '../../test/fixtures/icao/icao.fixtures';
import { ChipInputError } from './chip.errors';
import { chipCheckFromVerdicts } from './chip-check.factory';
import { parseCertificate } from './certificate.parser';
import { CscaTrustStore, InMemoryCscaTrustStore, toCscaCertificate } from './csca.trust-store';
import { PassiveAuthenticationResult } from './passive-authentication.types';
import { verifyPassiveAuthentication } from './passive-authentication.verifier';

// Fixed: several SODs carry no signingTime, and their certificates expire between 2027 and 2036.
const NOW = new Date('2026-11-22T12:00:00Z');

function storeWith(...certificates: (Buffer | null)[]): InMemoryCscaTrustStore {
  const store = new InMemoryCscaTrustStore();
  for (const der of certificates) if (der) store.add(der);
  return store;
}

function verify(input: VectorInput, overrides: { sod?: Buffer; trustStore?: CscaTrustStore; now?: Date } = {}): Promise<PassiveAuthenticationResult> {
  return verifyPassiveAuthentication({
    sod: overrides.sod ?? input.sod,
    dataGroups: input.dataGroups,
    trustStore: overrides.trustStore ?? storeWith(input.csca),
    now: overrides.now ?? NOW,
  });
}

function patched(buffer: Buffer, at: number, value: number): Buffer {
  const copy = Buffer.from(buffer);
  copy[at] = value;
  return copy;
}

describe('verifyPassiveAuthentication over every shared vector', () => {
  const expected = expectedResults();

  it('covers all 23 vectors of expected_results.json', () => {
    expect(Object.keys(expected)).toHaveLength(23);
  });

  describe.each(Object.entries(expected))('%s', (key, vector) => {
    let result: PassiveAuthenticationResult;
    beforeAll(async () => {
      result = await verify(vectorInput(key));
    });

    it('parses the LDS security object as the reference tools did', () => {
      expect(result.lds.content_type).toBe(vector.eContentType);
      expect(result.lds.hash_algorithm).toBe(vector.ldsHashAlgorithm);
      expect(result.signature_algorithm).toBe(vector.signatureAlgorithmOID);
      const stored = result.data_groups.filter((row) => row.stored_hash !== null).map((row) => row.number);
      expect(stored).toEqual(vector.dgHashesInSOD);
    });

    it('finds the Document Signer certificate the vector names', () => {
      expect(result.document_signer?.not_before).toBe(new Date(vector.dsValidity[0]).toISOString());
      expect(result.document_signer?.not_after).toBe(new Date(vector.dsValidity[1]).toISOString());
    });

    it('gives the expected ds_signature verdict', () => {
      if (vector.expect_messageDigest === 'FAIL') {
        expect(result.verdicts.ds_signature).toEqual({ status: 'failed', reason: 'message_digest_mismatch' });
      } else if (vector.expect_sodSignature === 'FAIL') {
        expect(result.verdicts.ds_signature).toEqual({ status: 'failed', reason: 'signature_invalid' });
      } else {
        expect(result.verdicts.ds_signature).toEqual({ status: 'succeeded' });
      }
    });

    it('gives the expected chain verdict', () => {
      if (!vector.cscaKey) {
        expect(result.verdicts.chain).toEqual({ status: 'failed', reason: 'no_csca_trust_anchor' });
      } else if (vector.expect_dsSignedByCsca === 'FAIL') {
        expect(result.verdicts.chain.status).toBe('failed');
        expect(['no_csca_trust_anchor', 'could_not_build_chain']).toContain(result.verdicts.chain.reason);
        expect(result.csca).toBeNull();
      } else {
        expect(result.verdicts.chain).toEqual({ status: 'succeeded' });
        expect(result.csca).not.toBeNull();
      }
    });

    it('gives the expected data group verdict and per-group status', () => {
      const dg = vector.expect_dgHash;
      if (!dg) {
        expect(result.verdicts.data_group_hashes).toEqual({ status: 'not_checked', reason: 'no_data_groups' });
        return;
      }
      const statusOf = (n: number) => result.data_groups.find((row) => row.number === n)?.status;
      for (const [number, outcome] of Object.entries(dg)) {
        const want = outcome === 'match' ? 'match' : outcome === 'MISMATCH' ? 'mismatch' : 'not_in_sod';
        expect([number, statusOf(Number(number))]).toEqual([number, want]);
      }
      const outcomes = Object.values(dg);
      if (outcomes.includes('MISMATCH')) expect(result.verdicts.data_group_hashes).toEqual({ status: 'failed', reason: 'hash_mismatch' });
      else if (outcomes.includes('NOT IN SOD')) expect(result.verdicts.data_group_hashes).toEqual({ status: 'failed', reason: 'data_group_not_in_sod' });
      else expect(result.verdicts.data_group_hashes).toEqual({ status: 'succeeded' });
    });

    it('passes the chip check only when every verdict succeeded', () => {
      const allSucceeded = Object.values(result.verdicts).every((v) => v.status === 'succeeded');
      expect(chipCheckFromVerdicts(result.verdicts).status === 'pass').toBe(allSucceeded);
    });
  });
});

describe('verifyPassiveAuthentication details', () => {
  const synthetic = (name: string) => vectorInput(`synthetic/${name}`);

  it.each(['rsa_pkcs1v15_sha256', 'rsassa_pss_sha256', 'ecdsa_p256_named_sha256', 'ecdsa_brainpoolP256r1_named_sha256', 'ecdsa_brainpoolP256r1_explicit_sha256'])(
    'passes the complete synthetic %s document with the exact genuine wording',
    async (name) => {
      const result = await verify(synthetic(name));
      expect(chipCheckFromVerdicts(result.verdicts)).toEqual({
        name: 'chip_passive_authentication',
        status: 'pass',
        reason: 'Document is genuine and unmodified per ICAO 9303 Passive Authentication.',
      });
      expect(result.uncovered_data_groups).toEqual([]);
    },
  );

  it('reports the stored and computed hashes of each data group in hex', async () => {
    const input = synthetic('ecdsa_p256_named_sha256');
    const result = await verify(input);
    const dg1 = result.data_groups.find((row) => row.number === 1);
    expect(dg1).toEqual({
      number: 1,
      stored_hash: createHash('sha256').update(input.dataGroups.get(1)!).digest('hex'),
      computed_hash: createHash('sha256').update(input.dataGroups.get(1)!).digest('hex'),
      status: 'match',
    });
  });

  it('reports the masked MRZ summary from an authenticated DG1', async () => {
    const result = await verify(synthetic('rsa_pkcs1v15_sha256'));
    expect(result.mrz).toEqual({
      format: 'TD3',
      document_type: 'P',
      issuing_state: 'UTO',
      document_number_masked: '*******C3',
      date_of_expiry: '2012-04-15',
      check_digits_valid: true,
    });
  });

  it('withholds the MRZ summary when DG1 does not match its signed hash', async () => {
    const result = await verify(vectorInput('synthetic/ecdsa_p256_named_sha256 + negative_EF_DG1_tampered'));
    expect(result.mrz).toBeNull();
  });

  it('matches the stored DG1 and DG2 hashes published with the real SODs', async () => {
    const published = JSON.parse(fixture('real_sods_gmrtd', 'expected_from_gmrtd_test.json').toString()) as {
      label: string;
      dg1Hash: string;
      dg2Hash: string;
      ldsVersion: string;
    }[];
    for (const entry of published) {
      const result = await verify(vectorInput(`real_sods_gmrtd/${entry.label}`));
      const stored = (n: number) => result.data_groups.find((row) => row.number === n)?.stored_hash;
      expect([entry.label, stored(1), stored(2)]).toEqual([entry.label, entry.dg1Hash, entry.dg2Hash]);
      // LDS 1.8 (version 1) SODs carry ldsVersionInfo; version 0 ones do not.
      expect([entry.label, result.lds.lds_version ?? '']).toEqual([entry.label, entry.ldsVersion]);
      expect(result.lds.version).toBe(entry.ldsVersion ? 1 : 0);
    }
  });

  it('judges certificate validity at the SOD signingTime, not at the time of verification', async () => {
    const result = await verify(synthetic('rsa_pkcs1v15_sha256'), { now: new Date('2060-01-01T00:00:00Z') });
    expect(result.signing_time).toBe('2026-11-22T03:38:22.000Z');
    expect(result.verdicts.chain).toEqual({ status: 'succeeded' });
  });

  it('judges validity at "now" when the SOD has no signingTime, failing an expired Document Signer', async () => {
    const input = vectorInput('real_sods_gmrtd/DE');
    const later = await verify(input, { now: new Date('2034-01-01T00:00:00Z') });
    expect(later.signing_time).toBeNull();
    expect(later.verdicts.chain).toEqual({ status: 'failed', reason: 'ds_certificate_not_valid_at_signing_time' });
    const before = await verify(input, { now: new Date('2022-12-01T00:00:00Z') });
    expect(before.verdicts.chain.status).toBe('failed');
  });

  it('never accepts a CSCA with the same name and key identifier but another key', async () => {
    const input = synthetic('rsa_pkcs1v15_sha256');
    const impostor = fixture('impostor', 'CSCA_same_name_same_ski_other_key.der');
    const store = storeWith(impostor);
    expect(store.size).toBe(1);
    const result = await verify(input, { trustStore: store });
    expect(result.verdicts.chain).toEqual({ status: 'failed', reason: 'could_not_build_chain' });
    expect(result.csca).toBeNull();
  });

  it('picks the genuine CSCA when an impostor with the same name is also trusted', async () => {
    const input = synthetic('rsa_pkcs1v15_sha256');
    const result = await verify(input, { trustStore: storeWith(fixture('impostor', 'CSCA_same_name_same_ski_other_key.der'), input.csca) });
    expect(result.verdicts.chain).toEqual({ status: 'succeeded' });
    expect(result.csca?.fingerprint_sha256).toBe(createHash('sha256').update(input.csca!).digest('hex'));
  });

  it('fails the chain with could_not_build_chain when a store offers a CSCA whose key did not sign the DS', async () => {
    const input = synthetic('rsa_pkcs1v15_sha256');
    const wrong = toCscaCertificate(parseCertificate(fixture('synthetic', 'ecdsa_p256_named_sha256', 'CSCA.der')));
    const everything: CscaTrustStore = { candidatesFor: () => [wrong] };
    const result = await verify(input, { trustStore: everything });
    expect(result.verdicts.chain).toEqual({ status: 'failed', reason: 'could_not_build_chain' });
  });

  it('accepts an asynchronous trust store, as a database-backed one will be', async () => {
    const input = synthetic('ecdsa_brainpoolP256r1_explicit_sha256');
    const inner = storeWith(input.csca);
    const result = await verify(input, { trustStore: { candidatesFor: async (ds) => inner.candidatesFor(ds) } });
    expect(result.verdicts.chain).toEqual({ status: 'succeeded' });
  });

  it('finds the Document Signer when the signer id names its issuer differently (tolerant fallback)', async () => {
    const input = synthetic('rsa_pkcs1v15_sha256');
    // The sid is outside the signed attributes, so editing it leaves the signature valid.
    // Its issuer Name is the last copy of "CSCA Utopia Test" in the SOD.
    const at = input.sod.lastIndexOf(Buffer.from('CSCA Utopia Test'));
    const sod = patched(input.sod, at, 'X'.charCodeAt(0));
    const result = await verify(input, { sod });
    expect(result.verdicts.ds_signature).toEqual({ status: 'succeeded' });
    expect(result.document_signer).not.toBeNull();
  });

  it('reports message_digest_mismatch when the signed LDS content was altered', async () => {
    const input = synthetic('ecdsa_p256_named_sha256');
    const result0 = await verify(input);
    const storedDg1 = Buffer.from(result0.data_groups[0].stored_hash!, 'hex');
    const at = input.sod.indexOf(storedDg1);
    const result = await verify(input, { sod: patched(input.sod, at, input.sod[at] ^ 0x01) });
    expect(result.verdicts.ds_signature).toEqual({ status: 'failed', reason: 'message_digest_mismatch' });
    expect(chipCheckFromVerdicts(result.verdicts).status).toBe('fail');
  });

  it('reports unsupported_algorithm, and an error check, for an unknown signature algorithm', async () => {
    const input = synthetic('rsa_pkcs1v15_sha256');
    const rsaEncryption = Buffer.from('06092a864886f70d010101', 'hex');
    const at = input.sod.lastIndexOf(rsaEncryption) + rsaEncryption.length - 1;
    const result = await verify(input, { sod: patched(input.sod, at, 0x63) });
    expect(result.verdicts.ds_signature).toEqual({ status: 'failed', reason: 'unsupported_algorithm' });
    expect(chipCheckFromVerdicts(result.verdicts).status).toBe('error');
  });

  it('passes a document that submits only the data groups its SOD covers', async () => {
    const input = vectorInput('bsi_tr03105_5_refdataset');
    const covered = new Map([...input.dataGroups].filter(([n]) => n !== 15));
    const result = await verifyPassiveAuthentication({ sod: input.sod, dataGroups: covered, trustStore: storeWith(), now: NOW });
    expect(result.verdicts.data_group_hashes).toEqual({ status: 'succeeded' });
    expect(result.uncovered_data_groups).toEqual([]);
  });

  it('lists the submitted data groups the SOD does not cover', async () => {
    const result = await verify(vectorInput('bsi_2008_test_passport_mustermann'));
    expect(result.uncovered_data_groups).toEqual([4, 15]);
  });

  it('rejects a truncated SOD with a malformed_sod ChipInputError', async () => {
    const input = synthetic('rsa_pkcs1v15_sha256');
    await expect(verify(input, { sod: input.sod.subarray(0, 700) })).rejects.toMatchObject({ name: 'ChipInputError', code: 'malformed_sod' });
  });

  it.each([0, 17, 1.5])('rejects data group number %s with an invalid_request ChipInputError', async (number) => {
    const input = synthetic('rsa_pkcs1v15_sha256');
    const dataGroups = new Map([[number, Buffer.from([0x61, 0x00])]]);
    await expect(verifyPassiveAuthentication({ sod: input.sod, dataGroups, trustStore: storeWith(), now: NOW })).rejects.toMatchObject({
      name: 'ChipInputError',
      code: 'invalid_request',
    });
  });

  it('never throws anything but a ChipInputError, whatever single byte of the SOD is flipped', async () => {
    const input = synthetic('ecdsa_p256_named_sha256');
    const unexpected: string[] = [];
    for (let at = 0; at < input.sod.length; at += 3) {
      try {
        await verify(input, { sod: patched(input.sod, at, input.sod[at] ^ 0xff) });
      } catch (error) {
        if (!(error instanceof ChipInputError)) unexpected.push(`${at}: ${String(error)}`);
      }
    }
    expect(unexpected).toEqual([]);
  });
});
