import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { SanctionsHit } from './session.type';

@ObjectType({ description: 'One stored version of a sanctions list.' })
export class SanctionsListVersion {
  @Field({ description: '`<list>-<publish date>-<content hash>`; sanctions hits carry it as listVersion.' }) version: string;
  @Field({ description: 'The loader that read it, e.g. ofac_xml, ofac_csv, eu_fsf_xml, uk_xml, un_xml, dfat_xlsx.' }) format: string;
  @Field({ description: 'File name given to the CLI, or the last path segment of the download URL.' }) sourceFile: string;
  @Field(() => String, { nullable: true, description: 'The publish or generation date the file states.' }) publishedAt: string | null;
  @Field(() => Int) entryCount: number;
  @Field(() => Int, { description: 'Defects that did not stop the load (e.g. an alias row without its entry).' }) warningCount: number;
  @Field({ description: 'When this version was last loaded: a reload or refresh that finds identical content renews it.' }) loadedAt: Date;
  @Field(() => Int, { description: 'Seconds since loadedAt: how long ago the list was last confirmed current.' }) ageSeconds: number;
}

@ObjectType({ description: 'A sanctions list (ofac, eu, uk, un, au): the version in force and the recent ones.' })
export class SanctionsList {
  @Field() list: string;
  @Field(() => SanctionsListVersion, { nullable: true, description: 'Null when no version of this list was ever loaded: screenings do not cover it.' })
  current: SanctionsListVersion | null;
  @Field(() => [SanctionsListVersion], { description: 'Up to the 10 most recently stored versions, newest first.' }) history: SanctionsListVersion[];
}

@ObjectType({ description: 'A list version a screening used.' })
export class SanctionsListUsed {
  @Field() list: string;
  @Field() version: string;
}

@ObjectType({ description: 'The outcome of screenIdentity.' })
export class ScreenIdentityResult {
  @Field(() => [SanctionsHit], { description: 'Best first; each with the features that produced its score.' }) hits: SanctionsHit[];
  @Field(() => [SanctionsListUsed], { description: 'Every list version the identity was screened against.' }) listsUsed: SanctionsListUsed[];
  @Field(() => Float, { description: "The minimum score of a hit: the tenant's threshold (default 0.70)." }) threshold: number;
}

@InputType({ description: 'A person to screen. Validated before screening: a bad value is an invalid_request error.' })
export class ScreenIdentityInput {
  @Field({ description: 'The full name as written, in any script (2 to 500 characters with at least 2 letters).' }) fullName: string;
  @Field(() => String, { nullable: true, description: 'YYYY or YYYY-MM-DD; raises or lowers the score.' }) birthDate?: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 code; raises or lowers the score.' }) nationality?: string | null;
}
