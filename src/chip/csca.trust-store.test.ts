import { fixture } from '../../test/fixtures/icao/icao.fixtures';
import { parseCertificate } from './certificate.parser';
import { distinguishedNameKey, documentSignerLookup, InMemoryCscaTrustStore } from './csca.trust-store';

describe('InMemoryCscaTrustStore', () => {
  const rsaCsca = fixture('synthetic', 'rsa_pkcs1v15_sha256', 'CSCA.der');
  const p256Csca = fixture('synthetic', 'ecdsa_p256_named_sha256', 'CSCA.der');
  const rsaDs = parseCertificate(fixture('synthetic', 'rsa_pkcs1v15_sha256', 'DSC.der'));

  it('finds the issuing CSCA of a Document Signer by its authority key identifier', () => {
    const store = new InMemoryCscaTrustStore();
    store.add(rsaCsca);
    store.add(p256Csca);
    const candidates = store.candidatesFor(documentSignerLookup(rsaDs));
    expect(candidates.map((c) => c.subject)).toEqual([parseCertificate(rsaCsca).subject]);
  });

  it('finds a CSCA by issuer name when the DS has no key identifier', () => {
    const store = new InMemoryCscaTrustStore();
    store.add(rsaCsca);
    const lookup = { ...documentSignerLookup(rsaDs), authorityKeyIdentifier: null };
    expect(store.candidatesFor(lookup)).toHaveLength(1);
  });

  it('offers a same-name certificate only as a candidate, once, alongside the genuine one', () => {
    const store = new InMemoryCscaTrustStore();
    store.add(rsaCsca);
    store.add(fixture('impostor', 'CSCA_same_name_same_ski_other_key.der'));
    store.add(rsaCsca);
    expect(store.size).toBe(2);
    expect(store.candidatesFor(documentSignerLookup(rsaDs))).toHaveLength(2);
  });

  it('returns no candidates for an unknown issuer', () => {
    const store = new InMemoryCscaTrustStore();
    store.add(p256Csca);
    expect(store.candidatesFor(documentSignerLookup(rsaDs))).toEqual([]);
  });
});

describe('distinguishedNameKey', () => {
  it('ignores RDN order, case and spacing, as some issuers vary them', () => {
    expect(distinguishedNameKey('C=MY\nO=Government of Malaysia\nCN=CSCA')).toBe(distinguishedNameKey('CN=csca\nO=Government  of Malaysia\nC=MY'));
  });

  it('keeps different names apart', () => {
    expect(distinguishedNameKey('C=DE\nCN=CSCA-GERMANY')).not.toBe(distinguishedNameKey('C=AT\nCN=CSCA-GERMANY'));
  });
});
