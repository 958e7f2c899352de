import type { BusinessRegistry, RegistryAnswer } from './business-registry';
import { isObject, parseJson, registryGetOrError, str, unexpectedStatus } from './registry-http';
import { systemClock, type Clock } from '../clock';

export const GLEIF_DEFAULT_URL = 'https://api.gleif.org/api/v1';
const UNUSABLE = new Set(['ANNULLED', 'DUPLICATE', 'RETIRED']);

/**
 * GLEIF's LEI records (JSON:API, no credential). `GET /lei-records/{LEI}`; an unknown LEI is a 404
 * error document, decided on the status, never the text (its wording is not documented).
 */
export class GleifRegistry implements BusinessRegistry {
  readonly name = 'gleif' as const;
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs?: number,
    private readonly now: Clock = systemClock,
  ) {}

  async lookup(lei: string): Promise<RegistryAnswer> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/lei-records/${encodeURIComponent(lei)}`;
    const r = await registryGetOrError('GLEIF', url, { accept: 'application/vnd.api+json' }, this.timeoutMs);
    if ('kind' in r) return r;
    if (r.status === 404) return { kind: 'not_found', reason: `GLEIF has no LEI record ${lei}`, sourceUrl: url, raw: r.body, contentType: r.contentType };
    if (r.status !== 200) return unexpectedStatus('GLEIF', r);
    const doc = parseJson(r.body);
    const data = isObject(doc) && isObject(doc.data) ? doc.data : null;
    const attributes = data && isObject(data.attributes) ? data.attributes : null;
    const entity = attributes && isObject(attributes.entity) ? attributes.entity : null;
    const legalName = entity && isObject(entity.legalName) ? str(entity.legalName.name) : null;
    if (!data || !entity || !legalName) return { kind: 'error', reason: 'GLEIF answered a body that is not an LEI record', raw: r.body.slice(0, 4096), contentType: r.contentType };
    const registration = isObject(attributes!.registration) ? attributes!.registration : {};
    const address = isObject(entity.legalAddress) ? entity.legalAddress : {};
    const names = (v: unknown): string[] => (Array.isArray(v) ? v.map((n) => (isObject(n) ? str(n.name) : null)).filter((n): n is string => !!n) : []);
    const status = str(entity.status);
    const lei_status = str(registration.status);
    const flags: string[] = [];
    if (lei_status && lei_status !== 'ISSUED') flags.push(`LEI registration status ${lei_status}`);
    const links = isObject(data.links) ? data.links : {};
    return {
      kind: 'found',
      raw: r.body,
      contentType: r.contentType || 'application/vnd.api+json',
      record: {
        registry: 'gleif',
        identifier: str(data.id) ?? lei,
        legal_name: legalName,
        status: status === 'ACTIVE' ? 'active' : status === 'INACTIVE' ? 'inactive' : 'unknown',
        jurisdiction: str(entity.jurisdiction),
        registered_address: {
          lines: Array.isArray(address.addressLines) ? address.addressLines.filter((l): l is string => typeof l === 'string') : [],
          city: str(address.city),
          region: str(address.region),
          postal_code: str(address.postalCode),
          country: str(address.country),
        },
        incorporated_on: str(entity.creationDate)?.slice(0, 10) ?? null,
        source_url: str(links.self) ?? url,
        retrieved_at: this.now().toISOString(),
      },
      context: {
        aliases: [...names(entity.otherNames), ...names(entity.transliteratedOtherNames)],
        flags,
        registeredAs: { id: isObject(entity.registeredAt) ? str(entity.registeredAt.id) : null, number: str(entity.registeredAs) },
        ...(lei_status && UNUSABLE.has(lei_status) ? { unusable: `the LEI is ${lei_status}` } : {}),
      },
    };
  }
}
