import type { BusinessRegistry, RegistryAnswer } from './business-registry';
import { isObject, parseJson, registryGetOrError, str, unexpectedStatus } from './registry-http';
import { systemClock, type Clock } from '../clock';

export const SEC_DEFAULT_URL = 'https://data.sec.gov';
/**
 * US state codes of stateOfIncorporation become US-XX. Foreign EDGAR codes (E9, X0, ...) need the SEC's
 * code table, which is not built in: they give no jurisdiction (not compared) and a flag with the code.
 */
const US_STATES = new Set('AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR'.split(' '));

/**
 * SEC EDGAR submissions (`/submissions/CIK##########.json`). The SEC requires a declared User-Agent
 * (`SEC_USER_AGENT`); an unknown CIK is a 404 with S3-style XML, so nothing but a 200 is parsed. EDGAR
 * has no status field: the record's status is always `unknown` (a person decides).
 */
export class SecEdgarRegistry implements BusinessRegistry {
  readonly name = 'sec_edgar' as const;
  constructor(
    private readonly baseUrl: string,
    private readonly userAgent: string,
    private readonly timeoutMs?: number,
    private readonly now: Clock = systemClock,
  ) {}

  async lookup(cik: string): Promise<RegistryAnswer> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/submissions/CIK${cik}.json`;
    const r = await registryGetOrError('SEC EDGAR', url, { 'user-agent': this.userAgent, accept: 'application/json' }, this.timeoutMs);
    if ('kind' in r) return r;
    if (r.status === 404) return { kind: 'not_found', reason: `SEC EDGAR has no filer with CIK ${cik}`, sourceUrl: url, raw: r.body, contentType: r.contentType };
    if (r.status === 403) return { kind: 'error', reason: 'SEC EDGAR refused the request (403): check SEC_USER_AGENT', raw: r.body.slice(0, 4096), contentType: r.contentType };
    if (r.status !== 200) return unexpectedStatus('SEC EDGAR', r);
    const doc = parseJson(r.body);
    const name = isObject(doc) ? str(doc.name) : null;
    if (!isObject(doc) || !name || !str(doc.cik)) return { kind: 'error', reason: 'SEC EDGAR answered a body that is not a submissions record', raw: r.body.slice(0, 4096), contentType: r.contentType };
    const business = isObject(doc.addresses) && isObject(doc.addresses.business) ? doc.addresses.business : null;
    const state = str(doc.stateOfIncorporation);
    const forms = isObject(doc.filings) && isObject(doc.filings.recent) && Array.isArray(doc.filings.recent.form) ? doc.filings.recent.form : [];
    const dates = isObject(doc.filings) && isObject(doc.filings.recent) && Array.isArray(doc.filings.recent.filingDate) ? doc.filings.recent.filingDate : [];
    const flags = ['EDGAR has no company status: the latest filings are a signal only'];
    if (forms.some((f) => typeof f === 'string' && /^15(-|$)/.test(f))) flags.push('a Form 15 (deregistration) is among the recent filings');
    if (typeof dates[0] === 'string') flags.push(`latest filing ${dates[0]}`);
    if (state && !US_STATES.has(state)) flags.push(`incorporated under EDGAR code ${state} (${str(doc.stateOfIncorporationDescription) ?? 'not described'})`);
    return {
      kind: 'found',
      raw: r.body,
      contentType: r.contentType || 'application/json',
      record: {
        registry: 'sec_edgar',
        identifier: str(doc.cik)!.padStart(10, '0'),
        legal_name: name,
        status: 'unknown',
        jurisdiction: state && US_STATES.has(state) ? `US-${state}` : null,
        // EDGAR publishes a business address, not a registered one: labelled so in docs/checks.md.
        registered_address: business
          ? { lines: [str(business.street1), str(business.street2)].filter((l): l is string => !!l), city: str(business.city), region: str(business.stateOrCountry), postal_code: str(business.zipCode), country: null }
          : null,
        incorporated_on: null,
        source_url: url,
        retrieved_at: this.now().toISOString(),
      },
      context: {
        aliases: Array.isArray(doc.formerNames) ? doc.formerNames.map((n) => (isObject(n) ? str(n.name) : null)).filter((n): n is string => !!n) : [],
        flags,
      },
    };
  }
}
