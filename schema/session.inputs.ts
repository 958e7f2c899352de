import { GraphQLJSONObject } from 'graphql-scalars';
import { ArgsType, Field, ID, InputType, Int } from 'type-graphql';
import { ReviewDecisionEnum, SessionStatusEnum, TierEnum, type ReviewDecisionValue, type SessionStatusValue, type TierValue } from './enums';

@InputType({ description: 'Creates a session (REST: CreateSessionRequest).' })
export class CreateSessionInput {
  @Field(() => ID, { description: 'A flow template id, or "default" for the tenant default flow.' }) flowId: string;
  @Field(() => TierEnum) tier: TierValue;
  @Field({ nullable: true }) referenceId?: string;
  @Field({ nullable: true, description: "Binds the session to a user: this tenant's subject (sub) of a user who signed in to it." }) userSub?: string;
  @Field({ nullable: true, description: 'Where the end user goes after success or failure.' }) redirectUrl?: string;
  @Field({ nullable: true, description: 'Defaults to the flow locale (en-US).' }) locale?: string;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Free-form. In test mode, test_outcome selects approved, declined or review.' })
  metadata?: Record<string, unknown>;
}

@InputType({ description: 'The manual-review override (REST: ManualReviewRequest).' })
export class ReviewSessionInput {
  @Field(() => ReviewDecisionEnum) decision: ReviewDecisionValue;
  @Field({ description: 'At least 3 characters.' }) reason: string;
  @Field({ nullable: true }) reviewerId?: string;
}

@ArgsType()
export class SessionsArgs {
  @Field(() => Int, { defaultValue: 20, description: '1 to 100.' }) first: number;
  @Field(() => String, { nullable: true }) after?: string;
  @Field(() => SessionStatusEnum, { nullable: true }) status?: SessionStatusValue;
  @Field(() => String, { nullable: true }) referenceId?: string;
}
