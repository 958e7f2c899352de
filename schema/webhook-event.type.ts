import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';

/** One webhook event as `webhookEvents` streams it (docs/webhooks.md, "On your own machine"). */
@ObjectType()
export class WebhookEvent {
  @Field(() => ID, { description: 'The event id (`evt_...`), the same a delivery carries in Service-Event-Id.' }) id: string;
  @Field({ description: 'verification.completed, verification.failed, verification.manual_review, user.* or biometric.purged.' }) type: string;
  @Field() createdAt: Date;
  @Field() livemode: boolean;
  @Field(() => GraphQLJSONObject, { description: "The envelope's data." }) data: Record<string, unknown>;
  @Field({ description: 'The exact body a webhook delivery of this event sends (the envelope as JSON): sign and forward these bytes.' }) body: string;
}
