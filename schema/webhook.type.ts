import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A registered webhook receiver. Its signing secret is never readable after creation or rotation.' })
export class WebhookEndpoint {
  @Field(() => ID) id: string;
  @Field() url: string;
  @Field(() => [String], { description: 'Subscribed verification.* events; user.* and biometric.* events are always sent.' }) events: string[];
  @Field() livemode: boolean;
  @Field({ description: 'enabled or disabled.' }) status: string;
  @Field(() => String, { nullable: true, description: 'disabled_by_tenant, receiver_gone (410) or failing_for_3_days.' }) disabledReason: string | null;
  @Field(() => Date, { nullable: true, description: 'Until when the previous secret still signs (rotation overlap).' }) previousSecretExpiresAt: Date | null;
  @Field(() => Date, { nullable: true, description: 'Start of the current run of failed attempts.' }) failingSince: Date | null;
  @Field() createdAt: Date;
}

@ObjectType({ description: 'An endpoint with its signing secret: returned only by creation and rotation.' })
export class WebhookEndpointWithSecret extends WebhookEndpoint {
  @Field({ description: 'Shown this once. Keep it like a password.' }) signingSecret: string;
}

@ObjectType({ description: 'One HTTP attempt of one delivery (the delivery log).' })
export class WebhookAttempt {
  @Field(() => ID) id: string;
  @Field(() => ID) deliveryId: string;
  @Field(() => ID) endpointId: string;
  @Field(() => ID) eventId: string;
  @Field(() => Int, { description: '1 to 8; a replay starts again at 1.' }) attempt: number;
  @Field() startedAt: Date;
  @Field(() => Int) durationMs: number;
  @Field(() => Int, { nullable: true, description: 'Null when no response arrived (timeout, connection error, refused URL).' }) statusCode: number | null;
  @Field() succeeded: boolean;
  @Field(() => String, { nullable: true }) error: string | null;
  @Field(() => String, { nullable: true, description: 'The first 1 KiB of the receiver response.' }) responseBody: string | null;
  @Field(() => Date, { nullable: true, description: 'When the next attempt is due; null after a success or the last attempt.' }) nextRetryAt: Date | null;
}

@ObjectType({ description: 'The result of a replay.' })
export class WebhookReplayResult {
  @Field(() => Int) queued: number;
}

@ObjectType({ description: 'One entry of a hash-chained audit log (docs/retention-and-audit.md): ids and hashes, never personal data.' })
export class AuditEntry {
  @Field(() => ID) id: string;
  @Field() action: string;
  @Field(() => ID) subjectId: string;
  @Field(() => GraphQLJSONObject) detail: Record<string, unknown>;
  @Field() createdAt: Date;
  @Field(() => Int, { description: 'Position in its log, from 1, without gaps.' }) sequence: number;
  @Field({ description: 'SHA-256 (hex) of the previous entry of the log; 64 zeros for the first.' }) prevHash: string;
  @Field({ description: 'SHA-256 (hex) of this entry\'s canonical encoding.' }) hash: string;
  @Field({ description: 'Pass as `after` for the entries before this one.' }) cursor: string;
}
