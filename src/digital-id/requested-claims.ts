import type { RequestedCredential } from './verified-digital-id';

/**
 * D24: the claims a tier asks for and no more. T1 needs a name, birth date, portrait (for face match)
 * and the document's number, expiry and issuing country; T3 adds nationality for screening. Each
 * credential type names them its own way; `DocumentClaim` is the service's name for each.
 */
export type DocumentClaim =
  | 'family_name'
  | 'given_name'
  | 'birth_date'
  | 'portrait'
  | 'document_number'
  | 'expiry_date'
  | 'issuing_country'
  | 'nationality';

const T1_CLAIMS: readonly DocumentClaim[] = ['family_name', 'given_name', 'birth_date', 'portrait', 'document_number', 'expiry_date', 'issuing_country'];

export interface CredentialProfile {
  /** The DCQL credential query id, and how a presentation in the vp_token is found again. */
  readonly id: 'mdl' | 'pid_mdoc' | 'pid_sd_jwt';
  readonly format: RequestedCredential['format'];
  readonly credentialType: string;
  readonly namespace?: string;
  /** Our claim name to the credential's element name. */
  readonly elements: Readonly<Record<DocumentClaim, string>>;
}

const ISO_MDOC_NAMES: Record<DocumentClaim, string> = {
  family_name: 'family_name',
  given_name: 'given_name',
  birth_date: 'birth_date',
  portrait: 'portrait',
  document_number: 'document_number',
  expiry_date: 'expiry_date',
  issuing_country: 'issuing_country',
  nationality: 'nationality',
};

export const CREDENTIAL_PROFILES: readonly CredentialProfile[] = [
  { id: 'mdl', format: 'mso_mdoc', credentialType: 'org.iso.18013.5.1.mDL', namespace: 'org.iso.18013.5.1', elements: ISO_MDOC_NAMES },
  { id: 'pid_mdoc', format: 'mso_mdoc', credentialType: 'eu.europa.ec.eudi.pid.1', namespace: 'eu.europa.ec.eudi.pid.1', elements: ISO_MDOC_NAMES },
  {
    // EU PID Rulebook, SD-JWT VC encoding: OIDC-style names.
    id: 'pid_sd_jwt',
    format: 'dc+sd-jwt',
    credentialType: 'urn:eudi:pid:1',
    elements: {
      family_name: 'family_name',
      given_name: 'given_name',
      birth_date: 'birthdate',
      portrait: 'picture',
      document_number: 'document_number',
      expiry_date: 'date_of_expiry',
      issuing_country: 'issuing_country',
      nationality: 'nationalities',
    },
  },
];

export function claimsForTier(tier: number): readonly DocumentClaim[] {
  return tier >= 3 ? [...T1_CLAIMS, 'nationality'] : T1_CLAIMS;
}

/** The credentials a request for this tier accepts, each with the element names it may disclose. */
export function requestedCredentialsForTier(tier: number): Array<RequestedCredential & { id: CredentialProfile['id'] }> {
  const claims = claimsForTier(tier);
  return CREDENTIAL_PROFILES.map((profile) => ({
    id: profile.id,
    format: profile.format,
    credentialType: profile.credentialType,
    namespace: profile.namespace,
    elements: claims.map((claim) => profile.elements[claim]),
  }));
}

/** Back from a credential's element names to ours, for the session's document data. */
export function documentClaimsOf(profileId: CredentialProfile['id'], elements: Readonly<Record<string, unknown>>): Partial<Record<DocumentClaim, unknown>> {
  const profile = CREDENTIAL_PROFILES.find((p) => p.id === profileId);
  if (!profile) return {};
  const out: Partial<Record<DocumentClaim, unknown>> = {};
  for (const [claim, element] of Object.entries(profile.elements) as Array<[DocumentClaim, string]>) {
    if (element in elements) out[claim] = elements[element];
  }
  return out;
}
