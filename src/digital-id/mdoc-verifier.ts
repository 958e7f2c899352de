import type { JsonWebKey, X509Certificate } from 'node:crypto';
import { checkMsoStatus, type StatusListCwtFetcher } from './mdoc-status';
import { checkChainNotRevoked, type CrlFetcher } from './crl-check';
import { DateOnly, DeviceSignedDocument, parseDeviceResponse, Verifier, type MDoc, type MdocContext } from '@animo-id/mdoc';
import { DigitalIdVerificationError } from './digital-id.errors';
import { nodeMdocContext } from './node-mdoc-context';
import type { RequestedCredential, VerifiedDigitalId } from './verified-digital-id';
import { issuerDisplayName, MDL_DOCUMENT_SIGNER_EKU, validateCertificateChain } from './x509-chain';

export interface MdocVerificationInput {
  /** The CBOR `DeviceResponse` the wallet returned. */
  readonly deviceResponse: Uint8Array;
  /** SessionTranscriptBytes of the channel the request went out on (session-transcript.ts). */
  readonly sessionTranscriptBytes: Uint8Array;
  /** The reader's ephemeral private key, needed only when the device authenticates with a MAC. */
  readonly ephemeralReaderKey?: JsonWebKey;
  /** DER of the IACA roots trusted in this mode. */
  readonly trustedRoots: readonly Uint8Array[];
  readonly now: Date;
  /** What the request asked for; a document or element outside it is refused. */
  readonly requested: readonly RequestedCredential[];
  /** Fetches the CRL the IACA names; without it a named CRL makes the check an error (crl-check.ts). */
  readonly fetchCrl?: CrlFetcher;
  /** Fetches the status list token (CWT) an MSO names; without it a named status makes the check an error (mdoc-status.ts). */
  readonly fetchStatusListCwt?: StatusListCwtFetcher;
}

/**
 * Verifies an ISO 18013-5 mdoc presentation step by step, each failure named (digital-id.errors.ts):
 * the document's type, the document signer's chain to a trusted IACA, the IssuerAuth COSE_Sign1, the
 * MSO validity window, every disclosed item's digest in the MSO, that only requested elements were
 * disclosed, and the DeviceAuth signature (or MAC) over this session's transcript.
 */
export async function verifyMdocPresentation(input: MdocVerificationInput): Promise<VerifiedDigitalId> {
  const verified: string[] = [];
  const response = parse(input.deviceResponse);
  const document = response.documents[0];
  if (!(document instanceof DeviceSignedDocument)) {
    throw new DigitalIdVerificationError('device_auth_invalid', 'the document carries no device authentication');
  }

  const issuerAuth = document.issuerSigned.issuerAuth;
  const mso = issuerAuth.decodedPayload;
  const request = input.requested.find((r) => r.format === 'mso_mdoc' && r.credentialType === document.docType);
  if (!request || mso.docType !== document.docType) {
    throw new DigitalIdVerificationError('unexpected_doctype', `doctype ${safeLabel(document.docType)} was not requested`);
  }
  verified.push('doctype');

  const context = nodeMdocContext({ now: input.now, requiredSignerEku: MDL_DOCUMENT_SIGNER_EKU });
  const chain = issuerAuth.certificateChain;
  if (!chain?.length) throw new DigitalIdVerificationError('issuer_certificate_invalid', 'IssuerAuth carries no x5chain');
  const { signer, anchor, path } = validateCertificateChain({
    chain,
    trustedRoots: input.trustedRoots,
    now: input.now,
    requiredSignerEku: MDL_DOCUMENT_SIGNER_EKU,
  });
  verified.push('issuer_chain');
  if (await checkChainNotRevoked({ path, anchor, now: input.now, fetchCrl: input.fetchCrl, signerRole: 'the document signer certificate' })) verified.push('issuer_not_revoked');

  const signatureValid = issuerAuth.algName
    ? await context.cose.sign1.verify({ sign1: issuerAuth, jwk: signer.publicKey.export({ format: 'jwk' }) as never })
    : false;
  if (!signatureValid) throw new DigitalIdVerificationError('issuer_signature_invalid', 'the IssuerAuth signature does not verify');
  verified.push('issuer_signature');
  const country = countryOf(signer);
  if (!country) throw new DigitalIdVerificationError('issuer_country_missing', 'the document signer names no country');

  checkValidity(mso.validityInfo, signer, input.now);
  verified.push('validity');
  verified.push(...(await checkMsoStatus({ mso: mso as unknown as Record<string, unknown>, signer, trustedRoots: input.trustedRoots, now: input.now, fetch: input.fetchStatusListCwt, fetchCrl: input.fetchCrl })));

  const claims = await checkDigestsAndScope(document, request, context, country);
  verified.push('digests', 'requested_elements_only');

  await checkDeviceAuth(document, input, context);
  verified.push('device_auth');

  return {
    format: 'mso_mdoc',
    credentialType: document.docType,
    issuer: { name: issuerDisplayName(signer), country },
    claims,
    validUntil: mso.validityInfo.validUntil,
    verified,
  };
}

function parse(bytes: Uint8Array): MDoc {
  let response: MDoc;
  try {
    response = parseDeviceResponse(bytes);
  } catch {
    throw new DigitalIdVerificationError('malformed_presentation', 'the DeviceResponse is not valid CBOR of the expected shape');
  }
  if (response.status !== 0 || response.documents.length !== 1) {
    throw new DigitalIdVerificationError('malformed_presentation', 'the DeviceResponse must hold exactly one document with status OK');
  }
  return response;
}

function checkValidity(validity: { signed: Date; validFrom: Date; validUntil: Date }, signer: X509Certificate, now: Date): void {
  if (now < validity.validFrom) throw new DigitalIdVerificationError('credential_not_yet_valid', 'the MSO validFrom is in the future');
  if (now > validity.validUntil) throw new DigitalIdVerificationError('credential_expired', 'the MSO validUntil has passed');
  if (validity.signed < new Date(signer.validFrom) || validity.signed > new Date(signer.validTo)) {
    throw new DigitalIdVerificationError('signed_outside_certificate_validity', 'the MSO was signed outside the signer certificate validity');
  }
}

async function checkDigestsAndScope(
  document: DeviceSignedDocument,
  request: RequestedCredential,
  context: MdocContext,
  signerCountry: string,
): Promise<Record<string, unknown>> {
  const issuerAuth = document.issuerSigned.issuerAuth;
  const claims: Record<string, unknown> = {};
  for (const [namespace, items] of document.issuerSigned.nameSpaces) {
    if (!issuerAuth.decodedPayload.valueDigests?.has(namespace)) {
      throw new DigitalIdVerificationError('digest_mismatch', `the MSO has no digests for namespace ${safeLabel(namespace)}`);
    }
    for (const item of items) {
      if (!(await item.isValid(namespace, issuerAuth, context))) {
        throw new DigitalIdVerificationError('digest_mismatch', `element ${safeLabel(item.elementIdentifier)} does not match its MSO digest`);
      }
      if (namespace !== request.namespace || !request.elements.includes(item.elementIdentifier)) {
        throw new DigitalIdVerificationError('element_not_requested', `element ${safeLabel(item.elementIdentifier)} was not requested`);
      }
      claims[item.elementIdentifier] = plainValue(item.elementValue);
    }
  }
  // ISO 18013-5 says issuing_country, when disclosed, must equal the document signer's country.
  if (typeof claims.issuing_country === 'string' && claims.issuing_country !== signerCountry) {
    throw new DigitalIdVerificationError('issuer_certificate_invalid', 'issuing_country differs from the document signer country');
  }
  for (const [, elements] of document.deviceSigned.nameSpaces) {
    if (elements.size > 0) throw new DigitalIdVerificationError('element_not_requested', 'device-signed elements were not requested');
  }
  return claims;
}

async function checkDeviceAuth(document: DeviceSignedDocument, input: MdocVerificationInput, context: MdocContext): Promise<void> {
  const failures: string[] = [];
  await new Verifier().verifyDeviceSignature(
    {
      deviceSigned: document,
      sessionTranscriptBytes: input.sessionTranscriptBytes,
      ephemeralPrivateKey: input.ephemeralReaderKey as never,
      onCheckG: (check) => {
        if (check.status === 'FAILED') failures.push(check.check);
      },
    },
    context,
  );
  if (failures.length > 0) {
    throw new DigitalIdVerificationError('device_auth_invalid', "the device signature does not cover this session's transcript");
  }
}

function countryOf(certificate: X509Certificate): string | null {
  const part = certificate.subject.split('\n').find((p) => p.startsWith('C='));
  return part ? part.slice(2) : null;
}

/** CBOR values to what the rest of the service stores: full-dates as YYYY-MM-DD, bytes kept as bytes. */
function plainValue(value: unknown): unknown {
  if (value instanceof DateOnly) return value.toISOString();
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return value;
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), plainValue(v)]));
  if (Array.isArray(value)) return value.map(plainValue);
  return value;
}

/** Identifiers come from the wallet: keep reasons short and printable. */
function safeLabel(text: unknown): string {
  return String(text).replace(/[^\w.:-]/g, '?').slice(0, 64);
}
