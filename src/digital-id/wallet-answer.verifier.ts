import type { CrlFetcher } from './crl-check';
import type { StatusListCwtFetcher } from './mdoc-status';
import { DigitalIdVerificationError } from './digital-id.errors';
import { verifyMdocPresentation } from './mdoc-verifier';
import { CREDENTIAL_PROFILES, requestedCredentialsForTier, type CredentialProfile } from './requested-claims';
import { verifySdJwtVcPresentation, type TrustedIssuerKey } from './sd-jwt-vc-verifier';
import { sessionTranscriptBytes } from './session-transcript';
import type { VerifiedDigitalId } from './verified-digital-id';

/** Which channel the request went out on: it decides the mdoc transcript and the KB-JWT audience. */
export type AnswerChannel =
  | { kind: 'dc_api'; origin: string }
  | { kind: 'cross_device'; clientId: string; responseUri: string; encryptionJwkThumbprint: Uint8Array };

export interface WalletAnswerInput {
  /** The `vp_token` of the wallet's answer: `{ <credential query id>: [presentation] }`. */
  readonly vpToken: unknown;
  readonly tier: number;
  readonly nonce: string;
  readonly channel: AnswerChannel;
  /** mdoc chains end at an IACA; SD-JWT VC x5c chains at an issuer root (or the issuer's key is held directly). */
  readonly trust: { readonly iacaRoots: readonly Uint8Array[]; readonly sdJwtVcRoots: readonly Uint8Array[]; readonly issuerKeys: readonly TrustedIssuerKey[] };
  readonly now: Date;
  readonly fetchStatusList?: (uri: string) => Promise<string>;
  /** Fetches the CRL an IACA names (mdoc document signers); absent, a named CRL makes the check an error. */
  readonly fetchCrl?: CrlFetcher;
  /** Fetches an mdoc's status list token (CWT); absent, an MSO naming a status makes the check an error. */
  readonly fetchStatusListCwt?: StatusListCwtFetcher;
}

export interface VerifiedAnswer {
  readonly profileId: CredentialProfile['id'];
  readonly result: VerifiedDigitalId;
  /** The presentation as the wallet sent it (base64url CBOR for mdoc, compact SD-JWT), for the vault. */
  readonly presentation: string;
}

/**
 * Checks a wallet's OpenID4VP answer against the request the session sent: exactly one of the offered
 * credentials, verified by its format's verifier, bound to this session's channel and nonce.
 */
export async function verifyWalletAnswer(input: WalletAnswerInput): Promise<VerifiedAnswer> {
  const { profile, presentation } = singlePresentation(input.vpToken);
  const requested = requestedCredentialsForTier(input.tier);
  const common = { now: input.now, requested };

  if (profile.format === 'mso_mdoc') {
    const transcript =
      input.channel.kind === 'dc_api'
        ? sessionTranscriptBytes({ kind: 'dc_api', origin: input.channel.origin, nonce: input.nonce })
        : sessionTranscriptBytes({
            kind: 'redirect',
            clientId: input.channel.clientId,
            nonce: input.nonce,
            responseUri: input.channel.responseUri,
            jwkThumbprint: input.channel.encryptionJwkThumbprint,
          });
    const deviceResponse = base64UrlBytes(presentation);
    const result = await verifyMdocPresentation({ ...common, trustedRoots: input.trust.iacaRoots, deviceResponse, sessionTranscriptBytes: transcript, fetchCrl: input.fetchCrl, fetchStatusListCwt: input.fetchStatusListCwt });
    if (result.credentialType !== profile.credentialType) {
      throw new DigitalIdVerificationError('unexpected_doctype', 'the presentation is not the credential its query id names');
    }
    return { profileId: profile.id, result, presentation };
  }

  const audience = input.channel.kind === 'dc_api' ? `origin:${input.channel.origin}` : input.channel.clientId;
  const result = await verifySdJwtVcPresentation({
    ...common,
    trustedRoots: input.trust.sdJwtVcRoots,
    presentation,
    nonce: input.nonce,
    audience,
    trustedIssuerKeys: input.trust.issuerKeys,
    fetchStatusList: input.fetchStatusList,
    fetchCrl: input.fetchCrl,
  });
  return { profileId: profile.id, result, presentation };
}

/**
 * An ISO 18013-7 Annex C answer (`org-iso-mdoc`): the DeviceResponse the wallet sealed, already opened
 * (iso-mdoc-dc-api.ts), verified as an mdoc over the Annex C transcript. Its doctype picks the credential:
 * the mDL or the PID as mdoc, each only with the elements the tier asks for.
 */
export async function verifyIsoMdocAnswer(
  input: Omit<WalletAnswerInput, 'vpToken' | 'nonce' | 'channel' | 'fetchStatusList'> & { deviceResponse: Uint8Array; sessionTranscriptBytes: Uint8Array },
): Promise<VerifiedAnswer> {
  const result = await verifyMdocPresentation({
    now: input.now,
    requested: requestedCredentialsForTier(input.tier),
    trustedRoots: input.trust.iacaRoots,
    deviceResponse: input.deviceResponse,
    sessionTranscriptBytes: input.sessionTranscriptBytes,
    fetchCrl: input.fetchCrl,
    fetchStatusListCwt: input.fetchStatusListCwt,
  });
  // verifyMdocPresentation refuses a doctype the tier did not ask for, so the profile exists.
  const profile = CREDENTIAL_PROFILES.find((p) => p.format === 'mso_mdoc' && p.credentialType === result.credentialType)!;
  return { profileId: profile.id, result, presentation: Buffer.from(input.deviceResponse).toString('base64url') };
}

function singlePresentation(vpToken: unknown): { profile: CredentialProfile; presentation: string } {
  if (!vpToken || typeof vpToken !== 'object' || Array.isArray(vpToken)) {
    throw new DigitalIdVerificationError('malformed_presentation', 'vp_token is not an object keyed by credential query id');
  }
  const entries = Object.entries(vpToken as Record<string, unknown>);
  if (entries.length !== 1) throw new DigitalIdVerificationError('malformed_presentation', 'vp_token must hold exactly one credential');
  const [id, value] = entries[0];
  const profile = CREDENTIAL_PROFILES.find((p) => p.id === id);
  if (!profile) throw new DigitalIdVerificationError('unexpected_doctype', 'vp_token names a credential that was not requested');
  const presentations = Array.isArray(value) ? value : [value];
  if (presentations.length !== 1 || typeof presentations[0] !== 'string' || presentations[0].length === 0) {
    throw new DigitalIdVerificationError('malformed_presentation', 'vp_token must hold one presentation string');
  }
  return { profile, presentation: presentations[0] };
}

function base64UrlBytes(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text)) throw new DigitalIdVerificationError('malformed_presentation', 'the mdoc presentation is not base64url');
  return new Uint8Array(Buffer.from(text, 'base64url'));
}
