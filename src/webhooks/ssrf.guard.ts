import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { DomainError } from '../errors';

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** A URL checked for delivery, with the one address the connection must use (pinned against DNS rebinding). */
export type WebhookTarget = { url: URL; address: string; family: 4 | 6 };

export type TargetPolicy = {
  /** Registration in test mode only: accept a name that does not resolve here; delivery always needs an address. */
  allowUnresolved?: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback and private ranges become receivers (a developer's own machine, tests). */
  allowPrivate?: boolean;
};

const defaultResolver: Resolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * The ranges of ipaddr.js that WEBHOOK_ALLOW_PRIVATE_TARGETS opens. Every other special-purpose
 * range (link-local with the cloud metadata address, multicast, broadcast, unspecified, reserved,
 * documentation, benchmarking, 6to4, Teredo, NAT64...) stays closed whatever the setting: the
 * service's own network is never a target (docs/security.md).
 */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);
/** The AWS metadata service over IPv6 sits inside the unique-local range the setting opens. */
const METADATA_V6 = ipaddr.parse('fd00:ec2::254');

/** Why an address may not receive webhooks, or null when it may. Only public unicast addresses may, unless `allowPrivate`. */
export function blockedReason(address: string, allowPrivate = false): string | null {
  if (!net.isIP(address)) return `${address} is not an IP address`;
  // Canonical text first: ipaddr.js reads any dotted tail (`::10.0.0.1`, IPv4-compatible) as IPv4-mapped.
  let ip = ipaddr.parse(net.isIPv6(address) ? new URL(`http://[${address}]`).hostname.slice(1, -1) : address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      ip = v6.toIPv4Address();
    } else {
      // IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291) reach the embedded IPv4 host on some stacks.
      const p = v6.parts;
      if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7] > 1)) return `${address} is an IPv4-compatible IPv6 address`;
      if (v6.match(METADATA_V6, 128)) return `${address} is a cloud metadata address`;
    }
  }
  const range = ip.range();
  if (range === 'unicast') return null;
  if (allowPrivate && PRIVATE_RANGES.has(range)) return null;
  return `${address} is in a special-purpose range (${range})`;
}

/**
 * Checks a webhook URL and resolves it to one address. Every mode: every address the name
 * resolves to must be public unicast (one bad answer refuses the URL, so a name cannot mix a
 * public and an internal address). Live mode also requires https; test mode allows http.
 * Throws `invalid_request` with the reason.
 */
export async function resolveWebhookTarget(rawUrl: string, livemode: boolean, resolve: Resolver = defaultResolver, policy: TargetPolicy = {}): Promise<WebhookTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new DomainError('invalid_request', 'url must be an absolute URI');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DomainError('invalid_request', 'url must be an http(s) URI');
  if (livemode && url.protocol !== 'https:') throw new DomainError('invalid_request', 'Live-mode webhook URLs must use https');
  if (url.username || url.password) throw new DomainError('invalid_request', 'url must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIPv6(host) ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      addresses = [];
    }
  }
  if (addresses.length === 0) {
    // A test-mode endpoint may name a host that only resolves where the developer runs their receiver.
    if (!livemode && policy.allowUnresolved) return { url, address: '', family: 4 };
    throw new DomainError('invalid_request', `url host ${host} does not resolve`);
  }
  for (const a of addresses) {
    const reason = blockedReason(a.address, policy.allowPrivate);
    if (reason) throw new DomainError('invalid_request', `url is not allowed: ${reason}`);
  }
  return { url, address: addresses[0].address, family: addresses[0].family };
}
