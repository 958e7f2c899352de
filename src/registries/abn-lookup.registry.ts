import type { BusinessRegistry, RegistryAnswer } from './business-registry';
import { isObject, parseJson, registryGetOrError, str, unexpectedStatus } from './registry-http';
import { systemClock, type Clock } from '../clock';

export const ABR_DEFAULT_URL = 'https://abr.business.gov.au/json';
const CALLBACK = 'callback';
const NOT_FOUND = /no (matching )?record found|not a valid abn/i;

/**
 * ABN Lookup's JSON service (`AbnDetails.aspx?abn=…&guid=…`). It answers JSONP, and its errors come
 * as HTTP 200 with an empty `Abn` and a `Message`: "No record found" is a not-found, anything else
 * (an unrecognised GUID) an error. Called server-side only, as the Web Services Agreement asks.
 */
export class AbnLookupRegistry implements BusinessRegistry {
  readonly name = 'au_abr' as const;
  constructor(
    private readonly baseUrl: string,
    private readonly guid: string,
    private readonly timeoutMs?: number,
    private readonly now: Clock = systemClock,
  ) {}

  async lookup(abn: string): Promise<RegistryAnswer> {
    const base = this.baseUrl.replace(/\/+$/, '');
    const url = `${base}/AbnDetails.aspx?abn=${encodeURIComponent(abn)}&callback=${CALLBACK}&guid=${encodeURIComponent(this.guid)}`;
    const shownUrl = `https://abr.business.gov.au/ABN/View/${abn}`;
    const r = await registryGetOrError('ABN Lookup', url, { accept: 'application/javascript, application/json' }, this.timeoutMs);
    if ('kind' in r) return r;
    if (r.status !== 200) return unexpectedStatus('ABN Lookup', r);
    const doc = parseJson(unwrapJsonp(r.body));
    if (!isObject(doc) || !('Abn' in doc)) return { kind: 'error', reason: 'ABN Lookup answered a body that is not an ABN record', raw: r.body.slice(0, 4096), contentType: r.contentType };
    const message = str(doc.Message);
    if (message || !str(doc.Abn)) {
      if (!message || NOT_FOUND.test(message)) return { kind: 'not_found', reason: `ABN Lookup has no record of ABN ${abn}${message ? ` ("${message}")` : ''}`, sourceUrl: shownUrl, raw: r.body, contentType: r.contentType };
      return { kind: 'error', reason: `ABN Lookup answered "${message}"`, raw: r.body, contentType: r.contentType };
    }
    const status = str(doc.AbnStatus);
    const state = str(doc.AddressState);
    return {
      kind: 'found',
      raw: r.body,
      contentType: r.contentType || 'application/javascript',
      record: {
        registry: 'au_abr',
        identifier: str(doc.Abn)!,
        legal_name: str(doc.EntityName) ?? '',
        status: status === 'Active' ? 'active' : status === 'Cancelled' ? 'inactive' : 'unknown',
        jurisdiction: state ? `AU-${state}` : 'AU',
        // The public record has no street address: only the state and postcode.
        registered_address: { lines: [], city: null, region: state, postal_code: str(doc.AddressPostcode), country: 'AU' },
        incorporated_on: null,
        source_url: shownUrl,
        retrieved_at: this.now().toISOString(),
      },
      context: {
        // Registered business names are aliases, never the legal name.
        aliases: Array.isArray(doc.BusinessName) ? doc.BusinessName.filter((n): n is string => typeof n === 'string') : [],
        flags: status && status !== 'Active' ? [`ABN status ${status}${str(doc.AbnStatusEffectiveFrom) ? ` from ${str(doc.AbnStatusEffectiveFrom)}` : ''}`] : [],
      },
    };
  }
}

/** `callback({...})` -> `{...}`: everything up to the first `(` and from the last `)` goes; plain JSON stays. */
export function unwrapJsonp(body: string): string {
  const t = body.trim();
  if (t.startsWith('{')) return t;
  const open = t.indexOf('(');
  const close = t.lastIndexOf(')');
  return open >= 0 && close > open ? t.slice(open + 1, close) : t;
}
