import type { DigitalIdRequestRow } from './digital-id-request.repository';
import { digitalIdCheck, documentReadingOf } from './digital-id-check';

const row = (status: DigitalIdRequestRow['status'], outcome: DigitalIdRequestRow['outcome']): DigitalIdRequestRow => ({
  id: 'dreq_x',
  sessionId: 'vses_x',
  tenantId: 'ten_x',
  tier: 'T1',
  livemode: true,
  nonce: 'n',
  state: 's',
  encryptionKeySealed: '',
  status,
  channel: 'cross_device',
  outcome,
  createdAt: new Date(),
  expiresAt: new Date(),
  answeredAt: new Date(),
  binding: null,
});

describe('the digital_id check', () => {
  it('passes with the format, type, issuer and steps verified', () => {
    const check = digitalIdCheck(row('verified', { format: 'dc+sd-jwt', credential_type: 'urn:eudi:pid:1', issuer: 'PID Issuer', issuer_country: 'DE', verified: ['vct', 'key_binding'] }));
    expect(check).toMatchObject({ name: 'digital_id', verdict: 'pass', reason: 'SD-JWT VC urn:eudi:pid:1 issued by PID Issuer: verified vct, key_binding', details: { issuer: 'PID Issuer', channel: 'cross_device' } });
  });

  it('fails with the failed step, and is an error when the service could not finish', () => {
    expect(digitalIdCheck(row('failed', { reason: 'nonce_mismatch', detail: 'another nonce' }))).toMatchObject({ verdict: 'fail', reason: 'nonce_mismatch: another nonce', details: { failed_step: 'nonce_mismatch' } });
    expect(digitalIdCheck(row('error', { reason: 'status_unavailable', detail: 'the status list could not be fetched' }))).toMatchObject({ verdict: 'error', reason: 'status_unavailable: the status list could not be fetched' });
  });

  it('gives the claims as document data, nationality as the MRZ alpha-3', () => {
    const reading = documentReadingOf({ format: 'dc+sd-jwt', credential_type: 'urn:eudi:pid:1', claims: { family_name: 'Mustermann', given_name: 'Erika', birth_date: '1984-08-12', nationality: ['DE'], issuing_country: 'DE', document_number: 'T22000129', expiry_date: '2031-01-01' } });
    expect(reading?.mrz?.fields).toMatchObject({ surname: 'Mustermann', givenNames: 'Erika', dateOfBirth: '1984-08-12', nationality: 'DEU', issuingState: 'DEU', documentNumber: 'T22000129' });
  });
});
