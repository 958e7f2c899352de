import { publicOriginOf } from '../net/configured-url';
import type { ListId } from '../../entities/list-snapshot.document';

/**
 * The official download address of each list, in a single-file format a loader reads
 * (docs/sanctions.md names each source and its format). They are the
 * SANCTIONS_URL_* defaults: a deployment screens against all five lists without configuring
 * anything. OFAC's classic `SDN.XML` export is used rather than `ADVANCED_XML`: the same entries
 * at about a fifth of the size, parsed in the server's own process.
 */
export const OFFICIAL_LIST_URLS: Readonly<Record<ListId, string>> = {
  ofac: 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.XML',
  // The token is the public one every FSF download link carries (not a credential).
  eu: 'https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw',
  uk: 'https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml',
  un: 'https://scsanctions.un.org/resources/xml/en/consolidated.xml',
  au: 'https://www.dfat.gov.au/sites/default/files/Australian_Sanctions_Consolidated_List.xlsx',
};

/** The value of a SANCTIONS_URL_* that switches a list's download off (an empty value does too). */
export const LIST_URL_OFF = 'off';

/**
 * Where a list is fetched from, as /healthz shows it: the origin only (a private mirror's address
 * can hold credentials, a key in its query or a token in its path: src/net/public-origin.ts).
 */
export function publicSourceOf(url: string | undefined): string {
  if (!url) return LIST_URL_OFF;
  return publicOriginOf(url);
}
