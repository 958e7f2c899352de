/**
 * The contract between the T4 business checks and the four public registries (docs/checks.md,
 * "Business registries"). Each adapter maps its registry's answer to one normalized record and keeps
 * the raw body beside it as evidence; the checks compare records, never a registry's own shape.
 */

/** The registries, by the names the normalized record carries. */
export const REGISTRY_NAMES = ['gleif', 'sec_edgar', 'uk_ch', 'au_abr'] as const;
export type RegistryName = (typeof REGISTRY_NAMES)[number];

/**
 * The one table of the registries: the T4 check each answers, the business-step field that names its
 * identifier (and how a person calls it), and the country whose national register it is (GLEIF is global).
 */
export const REGISTRY_CHECKS: Record<RegistryName, { check: string; field: 'lei' | 'cik' | 'uk_company_number' | 'abn'; fieldLabel: string; label: string; home: string | null }> = {
  gleif: { check: 'lei_registry', field: 'lei', fieldLabel: 'LEI', label: 'GLEIF', home: null },
  sec_edgar: { check: 'sec_filings', field: 'cik', fieldLabel: 'CIK', label: 'SEC EDGAR', home: 'US' },
  uk_ch: { check: 'uk_company_register', field: 'uk_company_number', fieldLabel: 'UK company number', label: 'Companies House', home: 'GB' },
  au_abr: { check: 'au_business_register', field: 'abn', fieldLabel: 'ABN', label: 'ABN Lookup', home: 'AU' },
};

/** The T4 registry checks: a registry whose identifier was not given is `skipped`, which never fails a business. */
export const REGISTRY_CHECK_NAMES: readonly string[] = REGISTRY_NAMES.map((n) => REGISTRY_CHECKS[n].check);

/** The national register of a business's country (GB, AU, US), which must pass when the country was given. */
export const NATIONAL_REGISTER: Readonly<Record<string, string>> = Object.fromEntries(
  REGISTRY_NAMES.flatMap((n) => (REGISTRY_CHECKS[n].home ? [[REGISTRY_CHECKS[n].home, REGISTRY_CHECKS[n].check]] : [])),
);

export type RegisteredAddress = { lines: string[]; city: string | null; region: string | null; postal_code: string | null; country: string | null };

/** One registry's answer about one identifier, in the same shape for every registry. */
export type RegistryRecord = {
  registry: RegistryName;
  identifier: string;
  legal_name: string;
  status: 'active' | 'inactive' | 'unknown';
  /** ISO 3166-1 alpha-2 or a 3166-2 subdivision (GB, US-DE, AU-VIC); null when the registry does not say. */
  jurisdiction: string | null;
  registered_address: RegisteredAddress | null;
  incorporated_on: string | null;
  source_url: string;
  /** Our clock: no registry returns it. */
  retrieved_at: string;
};

/** What the comparison reads beyond the record: other names, and registry-specific flags. */
export type RecordContext = {
  /** Alias, former or business names (GLEIF otherNames, SEC formerNames, CH previous_company_names, ABR BusinessName). */
  aliases: string[];
  /** Warnings a reviewer should see (a lapsed LEI, a strike-off proposal, insolvency). */
  flags: string[];
  /** GLEIF only: the national register number the LEI names (`entity.registeredAs`) and its authority (`registeredAt.id`). */
  registeredAs?: { id: string | null; number: string | null };
  /** Set when the identifier itself cannot be used (GLEIF ANNULLED, DUPLICATE, RETIRED). */
  unusable?: string;
};

export type RegistryAnswer =
  | { kind: 'found'; record: RegistryRecord; context: RecordContext; raw: string; contentType: string }
  | { kind: 'not_found'; reason: string; sourceUrl: string; raw: string; contentType: string }
  /** The registry said "too many": the check waits (the job queue retries it), it never fails for this. */
  | { kind: 'rate_limited'; retryAfterMs: number | null; reason: string }
  /** A timeout, a 5xx, an auth refusal or a body that does not parse: the check is `error`, never a pass. */
  | { kind: 'error'; reason: string; raw?: string; contentType?: string };

/** One registry behind its own API. `lookup` is given an identifier already validated and normalized. */
export interface BusinessRegistry {
  readonly name: RegistryName;
  lookup(identifier: string): Promise<RegistryAnswer>;
}

/** A registry that cannot be called (no credential configured): every lookup is an error with the reason. */
export class SwitchedOffRegistry implements BusinessRegistry {
  constructor(
    readonly name: RegistryName,
    readonly reason: string,
  ) {}
  async lookup(): Promise<RegistryAnswer> {
    return { kind: 'error', reason: this.reason };
  }
}

/**
 * A registry URL setting's value that switches the registry off. Here, not in registries.ts, so that
 * src/config.ts reads it without loading the registries' checks (the CLI loads config on every run).
 */
export const REGISTRY_URL_OFF = 'off';
