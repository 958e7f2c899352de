import { Args, Ctx, Query, Resolver } from 'type-graphql';
import type { CscaCertificateEntity } from '../entities';
import { requireTenantKey } from '../src/auth/auth.service';
import { encodeCscaCursor, PostgresCscaTrustStore } from '../src/chip/postgres-csca.trust-store';
import type { RequestContext } from '../src/context';
import { CscaCertificate, CscaCertificateConnection, CscaCertificatesArgs } from './csca.type';

/**
 * The operator-wide CSCA trust store, readable by any tenant key with sessions:read: tenants can
 * see which issuing states' passports their T5 sessions can anchor. Imports are CLI-only.
 */
@Resolver(() => CscaCertificate)
export class CscaResolver {
  constructor(private readonly store: PostgresCscaTrustStore) {}

  @Query(() => CscaCertificateConnection, { description: 'CSCA certificates trusted for T5 Passive Authentication.' })
  async cscaCertificates(@Args() args: CscaCertificatesArgs, @Ctx() ctx: RequestContext): Promise<CscaCertificateConnection> {
    requireTenantKey(ctx.actor, 'sessions:read');
    const page = await this.store.list(args);
    const edges = page.certificates.map((c) => ({ cursor: encodeCscaCursor(c.fingerprintSha256), node: toCscaCertificate(c) }));
    return { edges, pageInfo: { hasNextPage: page.hasNextPage, endCursor: edges.at(-1)?.cursor ?? null } };
  }
}

function toCscaCertificate(c: CscaCertificateEntity): CscaCertificate {
  return {
    fingerprintSha256: c.fingerprintSha256,
    subject: c.subject,
    issuer: c.issuer,
    country: c.country,
    subjectKeyIdentifier: c.subjectKeyIdentifier,
    serialNumber: c.serialNumber,
    notBefore: c.notBefore,
    notAfter: c.notAfter,
    source: c.source,
    masterListSha256: c.masterListSha256,
    masterListSigner: c.masterListSigner,
    anchorFingerprintSha256: c.anchorFingerprintSha256,
    importedAt: c.importedAt,
    derBase64: c.der.toString('base64'),
  };
}
