/** What a verified presentation yields, whichever its format. */
export interface VerifiedDigitalId {
  readonly format: 'mso_mdoc' | 'dc+sd-jwt';
  /** The mdoc doctype or the SD-JWT VC `vct`. */
  readonly credentialType: string;
  readonly issuer: {
    /** The signer's organisation or common name (mdoc: the document signer; SD-JWT VC: `iss` or the x5c signer). */
    readonly name: string;
    /** ISO 3166-1 alpha-2 from the signer certificate, when it carries one. */
    readonly country: string | null;
  };
  /** The disclosed elements, by element name (mdoc: per namespace flattened; SD-JWT VC: top-level claims). */
  readonly claims: Readonly<Record<string, unknown>>;
  readonly validUntil: Date | null;
  /** The steps that passed, in order, for the check's detail (e.g. `issuer_signature`, `device_auth`). */
  readonly verified: readonly string[];
}

/** One credential the request asked for: its type and the elements it may disclose. */
export interface RequestedCredential {
  readonly format: 'mso_mdoc' | 'dc+sd-jwt';
  /** The mdoc doctype or the SD-JWT VC `vct`. */
  readonly credentialType: string;
  /** mdoc: the namespace of the elements; SD-JWT VC: unused. */
  readonly namespace?: string;
  readonly elements: readonly string[];
}
