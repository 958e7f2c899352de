/**
 * The normalised, JSON-safe shape every list loader produces. Snapshots are plain objects
 * (no classes, no Dates) so they can be stored as jsonb or rows and rebuilt into an index.
 */

export const LIST_IDS = ['ofac', 'eu', 'uk', 'un', 'au'] as const;
export type ListId = (typeof LIST_IDS)[number];

export type SubjectType = 'person' | 'organisation' | 'vessel' | 'aircraft' | 'unknown';

/** Weak = a low-quality alias by the list's own marking (OFAC weak, EU strong=false, UN Low ...). */
export type NameStrength = 'strong' | 'weak';

export interface SanctionsName {
  full: string;
  strength: NameStrength;
  /** primary | aka | fka | nka | original_script | variation */
  kind: string;
  given?: string;
  family?: string;
  script?: string;
  lang?: string;
}

/**
 * A date of birth as listed. `from`/`to` are ISO prefixes (YYYY, YYYY-MM or YYYY-MM-DD);
 * exact dates have from === to.
 */
export interface BirthDate {
  kind: 'exact' | 'year' | 'month' | 'approx' | 'range';
  from: string;
  to: string;
  raw: string;
}

export interface IdentityDocument {
  type: string;
  number: string;
  country?: string;
  note?: string;
}

export interface SanctionsEntry {
  list: ListId;
  /** The list's record key, unique within one version (UN DATAID, EU logicalId, OFAC uid, UK UniqueID, DFAT Reference). */
  entry_id: string;
  /**
   * The reference a compliance officer looks up in the list's own publication: UN permanent
   * reference (`CDi.008`), OFAC entry number, EU reference (`EU.3579.2`), UK unique id (`RUS0001`),
   * DFAT reference. See docs/sanctions.md, "The list's own reference".
   */
  reference: string;
  programme: string;
  subject_type: SubjectType;
  names: SanctionsName[];
  birth_dates: BirthDate[];
  /** ISO 3166 alpha-2, upper case, where derivable from the source. */
  nationalities: string[];
  places_of_birth: string[];
  documents: IdentityDocument[];
  listed_on?: string;
  /** Source fields the engine does not use, kept verbatim (strings or string lists). */
  extra: Record<string, string | string[]>;
}

export type ListFormat =
  | 'ofac_xml'
  | 'ofac_csv'
  | 'ofac_advanced_xml'
  | 'eu_fsf_xml'
  | 'uk_xml'
  | 'un_xml'
  | 'dfat_xlsx';

export interface ListSnapshot {
  list: ListId;
  format: ListFormat;
  /** Opaque version label recorded on every hit (e.g. publish date + content hash). */
  version: string;
  source_file: string;
  /** The publish/generation date the file states, if any (ISO). */
  published_at?: string;
  loaded_at: string;
  entries: SanctionsEntry[];
  /** Defects that did not stop the load (e.g. an alias row for an id missing from sdn.csv). */
  warnings: string[];
}
