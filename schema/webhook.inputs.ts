import { Field, ID, InputType, Int } from 'type-graphql';

@InputType({ description: 'Registers a receiver (REST: POST /v1/verify/webhooks).' })
export class CreateWebhookEndpointInput {
  @Field({ description: 'Live mode: https, public address only. Test mode also allows http and localhost.' }) url: string;
  @Field(() => [String], { description: 'One or more of verification.completed, verification.failed, verification.manual_review.' }) events: string[];
}

@InputType({ description: 'Which events to send again: eventIds, or a since/until window of event creation times.' })
export class ReplayWebhookEventsInput {
  @Field(() => [ID], { nullable: true }) eventIds?: string[] | null;
  @Field(() => Date, { nullable: true }) since?: Date | null;
  @Field(() => Date, { nullable: true }) until?: Date | null;
}

@InputType()
export class RotateWebhookSecretInput {
  @Field(() => Int, { nullable: true, description: 'Seconds the old secret keeps signing beside the new one (default 86400, at most 604800).' })
  overlapSeconds?: number | null;
}
