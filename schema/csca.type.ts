import { ArgsType, Field, Int, ObjectType } from 'type-graphql';
import { PageInfo } from './session-connection.type';

@ObjectType({
  description:
    'A Country Signing CA certificate trusted for ICAO 9303 Passive Authentication. It anchors document signer certificates; it says nothing about any individual document or holder.',
})
export class CscaCertificate {
  @Field({ description: 'SHA-256 of the DER, lower-case hex; unique in the trust store.' }) fingerprintSha256: string;
  @Field({ description: 'Subject distinguished name, one RDN per line as node:crypto prints it.' }) subject: string;
  @Field() issuer: string;
  @Field(() => String, { nullable: true, description: 'Country code from the subject (C=).' }) country: string | null;
  @Field(() => String, { nullable: true, description: 'subjectKeyIdentifier, lower-case hex.' }) subjectKeyIdentifier: string | null;
  @Field({ description: 'Serial number, lower-case hex.' }) serialNumber: string;
  @Field() notBefore: Date;
  @Field() notAfter: Date;
  @Field({ description: '"master_list" (verified against an anchor) or "operator_certificate" (trusted explicitly by an operator).' }) source: string;
  @Field(() => String, { nullable: true, description: 'SHA-256 of the master list file it was imported from.' }) masterListSha256: string | null;
  @Field(() => String, { nullable: true }) masterListSigner: string | null;
  @Field(() => String, { nullable: true, description: 'SHA-256 of the anchor certificate the master list signer was verified against.' })
  anchorFingerprintSha256: string | null;
  @Field() importedAt: Date;
  @Field({ description: 'The certificate itself, base64 DER.' }) derBase64: string;
}

@ObjectType()
export class CscaCertificateEdge {
  @Field() cursor: string;
  @Field(() => CscaCertificate) node: CscaCertificate;
}

@ObjectType({ description: 'A page of trusted CSCA certificates, ordered by fingerprint.' })
export class CscaCertificateConnection {
  @Field(() => [CscaCertificateEdge]) edges: CscaCertificateEdge[];
  @Field(() => PageInfo) pageInfo: PageInfo;
}

@ArgsType()
export class CscaCertificatesArgs {
  @Field(() => Int, { defaultValue: 20, description: '1 to 100.' }) first: number;
  @Field(() => String, { nullable: true }) after?: string;
  @Field(() => String, { nullable: true, description: 'Only certificates of this country (C= of the subject), e.g. "DE".' }) country?: string;
}
