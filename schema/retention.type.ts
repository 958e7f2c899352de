import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: "A tenant's retention in one mode (docs/retention-and-audit.md)." })
export class Retention {
  @Field(() => ID) tenantId: string;
  @Field() livemode: boolean;
  @Field(() => Int, { description: 'Liveness and face-match templates, 0-365 days (0: purged when the session completes).' }) biometricTemplateDays: number;
  @Field(() => Int, { description: 'Raw selfie images, 0-90 days.' }) selfieImageDays: number;
  @Field(() => Int, { description: 'Raw selfie video (liveness frames), 0-30 days.' }) selfieVideoDays: number;
  @Field(() => Int, { description: 'ID document images, MRZ text and the decision with its signals, 1-10 years.' }) idDocumentYears: number;
  @Field(() => Date, { nullable: true, description: 'Null while the defaults apply.' }) updatedAt: Date | null;
}

@InputType({ description: 'A partial update: give only the fields to change.' })
export class RetentionInput {
  @Field(() => Int, { nullable: true }) biometricTemplateDays?: number | null;
  @Field(() => Int, { nullable: true }) selfieImageDays?: number | null;
  @Field(() => Int, { nullable: true }) selfieVideoDays?: number | null;
  @Field(() => Int, { nullable: true }) idDocumentYears?: number | null;
}

@ObjectType({ description: 'One retention run: the nightly pass (reclassify, purge) or the hourly purge. Counts are per artifact class.' })
export class RetentionRun {
  @Field(() => ID) id: string;
  @Field({ description: 'nightly, hourly or manual.' }) kind: string;
  @Field() startedAt: Date;
  @Field(() => Date, { nullable: true }) finishedAt: Date | null;
  @Field(() => GraphQLJSONObject, { description: 'Artifacts whose retain_until was shortened, per class.' }) reclassified: Record<string, number>;
  @Field(() => GraphQLJSONObject, { description: 'Artifacts purged, per class.' }) purged: Record<string, number>;
  @Field({ description: 'Pass as `after` for older runs.' }) cursor: string;
}

@ObjectType({ description: "A regulated tenant's extension of one session's ID-document retention." })
export class RetentionExtension {
  @Field(() => ID) id: string;
  @Field(() => ID) sessionId: string;
  @Field(() => Int) idDocumentYears: number;
  @Field({ description: 'The latest retain_until among the extended artifacts.' }) retainUntil: Date;
  @Field(() => Int, { description: 'How many artifacts were extended.' }) artifacts: number;
  @Field() createdAt: Date;
}
