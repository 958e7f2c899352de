import { createHash } from 'node:crypto';
import { publicOriginOf } from '../net/configured-url';
import type { Logger } from '../logger';
import { AbnLookupRegistry } from './abn-lookup.registry';
import { REGISTRY_NAMES, REGISTRY_URL_OFF, SwitchedOffRegistry, type BusinessRegistry, type RegistryName } from './business-registry';
import { BusinessChecksService } from './business-checks.service';
import { CompaniesHouseRegistry } from './companies-house.registry';
import { GleifRegistry } from './gleif.registry';
import { RegistryCache } from './registry-cache';
import { MemoryRegistryRateLimiter, RedisRegistryRateLimiter, type RegistryRateLimiter } from './registry-rate-limiter';
import { SecEdgarRegistry } from './sec-edgar.registry';

/** Base URLs (`off` switches a registry off) and credentials, from REGISTRY_* and the credential variables (docs/checks.md). */
export type RegistriesConfig = {
  gleifUrl: string;
  secUrl: string;
  secUserAgent: string | undefined;
  companiesHouseUrl: string;
  companiesHouseApiKey: string | undefined;
  abrUrl: string;
  abrGuid: string | undefined;
  timeoutMs: number;
  redisUrl: string | undefined;
  redisPrefix: string;
};

/** What /healthz says of each registry: whether it is called, at which origin, or why it is switched off. */
export type RegistryHealth = { enabled: true; url: string } | { enabled: false; reason: string };

export type BusinessRegistries = { checks: BusinessChecksService; health(): Record<RegistryName, RegistryHealth>; close(): Promise<void> };

/** The four adapters as configured: one without its credential (or with its URL `off`) answers `error` with the reason. */
export function createBusinessRegistries(c: RegistriesConfig, logger: Logger): BusinessRegistries {
  const health = {} as Record<RegistryName, RegistryHealth>;
  const off = (name: RegistryName, reason: string): BusinessRegistry => {
    health[name] = { enabled: false, reason };
    return new SwitchedOffRegistry(name, reason);
  };
  const on = <T extends BusinessRegistry>(name: RegistryName, url: string, make: () => T): T => {
    health[name] = { enabled: true, url: publicOriginOf(url) }; // never the path, query or credentials: /healthz is public
    return make();
  };
  const isOff = (url: string) => url === REGISTRY_URL_OFF;
  const registries: Record<RegistryName, BusinessRegistry> = {
    gleif: isOff(c.gleifUrl) ? off('gleif', 'GLEIF is switched off on this service (REGISTRY_GLEIF_URL=off)') : on('gleif', c.gleifUrl, () => new GleifRegistry(c.gleifUrl, c.timeoutMs)),
    sec_edgar: isOff(c.secUrl)
      ? off('sec_edgar', 'SEC EDGAR is switched off on this service (REGISTRY_SEC_URL=off)')
      : !c.secUserAgent
        ? off('sec_edgar', 'SEC EDGAR is switched off: SEC_USER_AGENT is not set (the SEC requires a declared User-Agent)')
        : on('sec_edgar', c.secUrl, () => new SecEdgarRegistry(c.secUrl, c.secUserAgent!, c.timeoutMs)),
    uk_ch: isOff(c.companiesHouseUrl)
      ? off('uk_ch', 'Companies House is switched off on this service (REGISTRY_COMPANIES_HOUSE_URL=off)')
      : !c.companiesHouseApiKey
        ? off('uk_ch', 'Companies House is switched off: COMPANIES_HOUSE_API_KEY is not set')
        : on('uk_ch', c.companiesHouseUrl, () => new CompaniesHouseRegistry(c.companiesHouseUrl, c.companiesHouseApiKey!, c.timeoutMs)),
    au_abr: isOff(c.abrUrl)
      ? off('au_abr', 'ABN Lookup is switched off on this service (REGISTRY_ABR_URL=off)')
      : !c.abrGuid
        ? off('au_abr', 'ABN Lookup is switched off: ABR_GUID is not set')
        : on('au_abr', c.abrUrl, () => new AbnLookupRegistry(c.abrUrl, c.abrGuid!, c.timeoutMs)),
  };
  // Companies House counts per key, so its budget is per key; the others per registry (the SEC's is global).
  const keyHash = c.companiesHouseApiKey ? createHash('sha256').update(c.companiesHouseApiKey).digest('hex').slice(0, 12) : 'none';
  const limiter: RegistryRateLimiter = c.redisUrl
    ? new RedisRegistryRateLimiter(c.redisUrl, (name) => `${c.redisPrefix}:registry-slot:${name}${name === 'uk_ch' ? `:${keyHash}` : ''}`, undefined, undefined, (err) =>
        logger.warn({ err: err.message }, 'registry rate limiter: Redis does not answer; this instance spaces its own calls until it does'))
    : new MemoryRegistryRateLimiter();
  logger.info({ registries: REGISTRY_NAMES.map((n) => `${n}:${health[n].enabled ? 'on' : 'off'}`).join(' ') }, 'business registries');
  return { checks: new BusinessChecksService(registries, limiter, new RegistryCache()), health: () => health, close: () => limiter.close() };
}
