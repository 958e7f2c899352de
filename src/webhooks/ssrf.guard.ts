import dns from 'node:dns/promises';
import net from 'node:net';
import { DomainError } from '../errors';

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** A URL checked for delivery, with the one address the connection must use (pinned against DNS rebinding). */
export type WebhookTarget = { url: URL; address: string; family: 4 | 6 };

const defaultResolver: Resolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Never a receiver, in any mode: link-local (cloud metadata lives at 169.254.169.254 / fd00:ec2::254) and "this host". */
const ALWAYS_BLOCKED = new net.BlockList();
ALWAYS_BLOCKED.addSubnet('0.0.0.0', 8, 'ipv4');
ALWAYS_BLOCKED.addSubnet('169.254.0.0', 16, 'ipv4');
ALWAYS_BLOCKED.addSubnet('255.255.255.255', 32, 'ipv4');
ALWAYS_BLOCKED.addSubnet('224.0.0.0', 4, 'ipv4');
ALWAYS_BLOCKED.addAddress('::', 'ipv6');
ALWAYS_BLOCKED.addSubnet('fe80::', 10, 'ipv6');
ALWAYS_BLOCKED.addSubnet('ff00::', 8, 'ipv6');
ALWAYS_BLOCKED.addAddress('fd00:ec2::254', 'ipv6');

/** Not public: refused in live mode (loopback, private, shared, reserved and documentation ranges). */
const NON_PUBLIC = new net.BlockList();
for (const [net4, prefix] of [
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(net4, prefix, 'ipv4');
}
NON_PUBLIC.addAddress('::1', 'ipv6');
NON_PUBLIC.addSubnet('fc00::', 7, 'ipv6');
NON_PUBLIC.addSubnet('2001:db8::', 32, 'ipv6');

/** IPv6 forms that carry an IPv4 address (mapped, NAT64): judged by that IPv4 address. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

/** Why an address may not receive webhooks in this mode, or null when it may. */
export function blockedReason(address: string, livemode: boolean): string | null {
  const v4 = net.isIPv4(address) ? address : embeddedIpv4(address);
  const [addr, type] = v4 ? [v4, 'ipv4' as const] : [address, 'ipv6' as const];
  if (ALWAYS_BLOCKED.check(addr, type)) return `${address} is a link-local, metadata or unspecified address`;
  if (livemode && NON_PUBLIC.check(addr, type)) return `${address} is a loopback, private or reserved address`;
  return null;
}

/**
 * Checks a webhook URL and resolves it to one address. Live mode: https only, and every address
 * the name resolves to must be public (one bad answer refuses the URL, so a name cannot mix a
 * public and an internal address). Test mode allows http and localhost for development.
 * Throws `invalid_request` with the reason. `allowUnresolved` (registration in test mode only)
 * accepts a name that does not resolve here; delivery always needs an address.
 */
export async function resolveWebhookTarget(
  rawUrl: string,
  livemode: boolean,
  resolve: Resolver = defaultResolver,
  opts: { allowUnresolved?: boolean } = {},
): Promise<WebhookTarget> {
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
    if (!livemode && opts.allowUnresolved) return { url, address: '', family: 4 };
    throw new DomainError('invalid_request', `url host ${host} does not resolve`);
  }
  for (const a of addresses) {
    const reason = blockedReason(a.address, livemode);
    if (reason) throw new DomainError('invalid_request', `url is not allowed: ${reason}`);
  }
  return { url, address: addresses[0].address, family: addresses[0].family };
}
