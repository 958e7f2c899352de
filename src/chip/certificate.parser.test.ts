import { fixture } from '../../test/fixtures/icao/icao.fixtures';
import { isSignedBy, isValidAt, parseCertificate } from './certificate.parser';

describe('parseCertificate', () => {
  it('reads key identifiers, serial and validity from a Document Signer certificate', () => {
    const ds = parseCertificate(fixture('synthetic', 'rsa_pkcs1v15_sha256', 'DSC.der'));
    expect(ds.authorityKeyIdentifier?.toString('hex')).toBe('67705ee3f4cc24964e3a7251b8ed17f83f556867');
    expect(ds.subjectKeyIdentifier?.toString('hex')).toBe('2a1546e02dc444845f4c8dc786ebfd25f9dcbc95');
    expect(ds.notBefore.toISOString()).toBe('2026-11-22T03:38:22.000Z');
    expect(ds.subject).toContain('CN=DS Utopia Test rsa_pkcs1v15_sha256');
  });

  // The verifier relies on node:crypto (OpenSSL 3) mapping explicit EC domain parameters to the
  // named curve; WebCrypto and pkijs cannot. If a Node upgrade drops this, these fail first.
  it.each([
    ['real_sods_gmrtd/AT', 'brainpoolP256r1'],
    ['real_sods_gmrtd/DE', 'brainpoolP384r1'],
    ['real_sods_gmrtd/FI', 'brainpoolP512r1'],
    ['real_sods_gmrtd/UK', 'prime256v1'],
    ['bsi_2008_test_passport_mustermann', 'brainpoolP224r1'],
  ])('loads the explicit-parameter EC key of %s as %s', (folder, curve) => {
    const der = fixture(folder, 'DSC.der');
    // id-ecPublicKey followed by a SEQUENCE (explicit ECParameters), not a named-curve OID.
    expect(der.includes(Buffer.from('06072a8648ce3d02013082', 'hex')) || der.includes(Buffer.from('06072a8648ce3d02013081', 'hex'))).toBe(true);
    expect(parseCertificate(der).publicKey.asymmetricKeyDetails?.namedCurve).toBe(curve);
  });

  it('verifies a DS -> CSCA link with explicit brainpool parameters on both sides', () => {
    const ds = parseCertificate(fixture('real_sods_gmrtd', 'DE', 'DSC.der'));
    const csca = parseCertificate(fixture('real_sods_gmrtd', 'DE', 'CSCA.der'));
    expect(isSignedBy(ds, csca)).toBe(true);
    expect(isSignedBy(csca, ds)).toBe(false);
  });

  it('treats validity bounds as inclusive', () => {
    const ds = parseCertificate(fixture('synthetic', 'rsa_pkcs1v15_sha256', 'DSC.der'));
    expect(isValidAt(ds, ds.notBefore)).toBe(true);
    expect(isValidAt(ds, new Date(ds.notBefore.getTime() - 1000))).toBe(false);
  });

  it('rejects bytes that are not a certificate', () => {
    expect(() => parseCertificate(Buffer.from('3003020101', 'hex'))).toThrow();
  });
});
