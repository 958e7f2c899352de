import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A data-subject request (docs/data-rights.md, "DSR jobs"): one of every kind, one state machine.' })
export class DsrJob {
  @Field(() => ID) id: string;
  @Field({ description: 'export, rectification, erasure, restriction, objection, review or biometric_purge.' }) kind: string;
  @Field({ description: 'awaiting_confirmation (delegated only), received, in_progress, completed, denied or failed.' }) status: string;
  @Field(() => String, { nullable: true, description: 'Why it was denied (e.g. not_confirmed) or failed.' }) reason: string | null;
  @Field({ description: 'True when a tenant initiated it on the user\'s behalf.' }) delegated: boolean;
  @Field(() => ID, { nullable: true, description: 'The user (usr_...); shown to the operator only.' }) userId: string | null;
  @Field() createdAt: Date;
  @Field({ description: 'When it counts as received: creation, or the user\'s confirmation of a delegated request.' }) receivedAt: Date;
  @Field({ description: '3 business days after receipt (Monday to Friday, UTC).' }) acknowledgeBy: Date;
  @Field({ description: '30 days after receipt; a review: 7 business days.' }) expectedBy: Date;
  @Field(() => Date, { nullable: true, description: 'A delegated request not confirmed by then is denied (not_confirmed).' }) confirmBy: Date | null;
  @Field(() => Date, { nullable: true }) confirmedAt: Date | null;
  @Field(() => Date, { nullable: true }) completedAt: Date | null;
}
