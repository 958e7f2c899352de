import type { BusinessRegistry, RegistryAnswer } from './business-registry';
import { isObject, parseJson, registryGetOrError, str, unexpectedStatus } from './registry-http';
import { systemClock, type Clock } from '../clock';

export const COMPANIES_HOUSE_DEFAULT_URL = 'https://api.company-information.service.gov.uk';

const ACTIVE = new Set(['active', 'open', 'registered']);
const CLOSED = new Set(['dissolved', 'converted-closed', 'closed', 'removed']);
const INSOLVENCY = new Set(['liquidation', 'receivership', 'administration', 'voluntary-arrangement', 'insolvency-proceedings']);
const JURISDICTION: Record<string, string> = { 'england-wales': 'GB', wales: 'GB', england: 'GB', 'united-kingdom': 'GB', scotland: 'GB-SCT', 'northern-ireland': 'GB-NIR' };

/**
 * Companies House's public data API: `GET /company/{number}` with HTTP Basic auth (the API key as
 * user name, an empty password). An unknown number is a 404 `company-profile-not-found`; a bad key a 401.
 * Insolvency statuses count as inactive (docs/checks.md).
 */
export class CompaniesHouseRegistry implements BusinessRegistry {
  readonly name = 'uk_ch' as const;
  private readonly authorization: string;
  constructor(
    private readonly baseUrl: string,
    apiKey: string,
    private readonly timeoutMs?: number,
    private readonly now: Clock = systemClock,
  ) {
    this.authorization = `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`;
  }

  async lookup(number: string): Promise<RegistryAnswer> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/company/${encodeURIComponent(number)}`;
    const r = await registryGetOrError('Companies House', url, { authorization: this.authorization, accept: 'application/json' }, this.timeoutMs);
    if ('kind' in r) return r;
    if (r.status === 404) return { kind: 'not_found', reason: `Companies House has no company ${number}`, sourceUrl: url, raw: r.body, contentType: r.contentType };
    if (r.status === 401) return { kind: 'error', reason: 'Companies House refused the API key (401): check COMPANIES_HOUSE_API_KEY', raw: r.body.slice(0, 4096), contentType: r.contentType };
    if (r.status !== 200) return unexpectedStatus('Companies House', r);
    const doc = parseJson(r.body);
    const name = isObject(doc) ? str(doc.company_name) : null;
    if (!isObject(doc) || !name) return { kind: 'error', reason: 'Companies House answered a body that is not a company profile', raw: r.body.slice(0, 4096), contentType: r.contentType };
    const status = str(doc.company_status)?.toLowerCase() ?? '';
    const flags: string[] = [];
    if (INSOLVENCY.has(status)) flags.push(`insolvency: company status ${status}`);
    const detail = str(doc.company_status_detail);
    if (detail) flags.push(`company status detail ${detail}`);
    if (doc.has_insolvency_history === true) flags.push('has insolvency history');
    const a = isObject(doc.registered_office_address) ? doc.registered_office_address : null;
    const jurisdiction = str(doc.jurisdiction);
    const n = str(doc.company_number) ?? number;
    return {
      kind: 'found',
      raw: r.body,
      contentType: r.contentType || 'application/json',
      record: {
        registry: 'uk_ch',
        identifier: n,
        legal_name: name,
        status: ACTIVE.has(status) ? 'active' : CLOSED.has(status) || INSOLVENCY.has(status) ? 'inactive' : 'unknown',
        jurisdiction: jurisdiction ? (JURISDICTION[jurisdiction] ?? null) : null,
        registered_address: a
          ? { lines: [str(a.premises), str(a.address_line_1), str(a.address_line_2)].filter((l): l is string => !!l), city: str(a.locality), region: str(a.region), postal_code: str(a.postal_code), country: str(a.country) }
          : null,
        incorporated_on: str(doc.date_of_creation),
        source_url: `https://find-and-update.company-information.service.gov.uk/company/${n}`,
        retrieved_at: this.now().toISOString(),
      },
      context: {
        aliases: Array.isArray(doc.previous_company_names) ? doc.previous_company_names.map((p) => (isObject(p) ? str(p.name) : null)).filter((p): p is string => !!p) : [],
        flags,
      },
    };
  }
}
