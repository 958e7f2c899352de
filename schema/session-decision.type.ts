import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { DecisionSourceEnum, HumanDecisionEnum, type HumanDecisionValue, SessionDecisionKindEnum, SessionStatusEnum } from './enums';
import { Check, Session } from './session.type';

@ObjectType({ description: "One entry of a session's decision history (oldest first): the pipeline's decision or a person's." })
export class SessionDecision {
  @Field(() => ID) id: string;
  @Field(() => ID) sessionId: string;
  @Field(() => SessionDecisionKindEnum) decision: string;
  @Field(() => DecisionSourceEnum) source: string;
  @Field(() => String, { nullable: true }) reason: string | null;
  @Field(() => String, { nullable: true }) reviewerId: string | null;
  @Field(() => String, { nullable: true, description: 'A human decision: tenant (API or console) or end_user (a review request).' }) requestedBy: string | null;
  @Field(() => SessionStatusEnum) fromStatus: string;
  @Field(() => SessionStatusEnum) toStatus: string;
  @Field(() => String, { nullable: true, description: 'An automated decision: the version of the policy that decided.' }) policyVersion: string | null;
  @Field(() => [Check], { nullable: true, description: 'An automated decision: the checks the policy read.' }) checks: Check[] | null;
  @Field() decidedAt: Date;
}

@InputType()
export class DecideSessionInput {
  @Field(() => HumanDecisionEnum) decision: HumanDecisionValue;
  @Field({ description: 'At least 3 characters.' }) reason: string;
  @Field({ nullable: true }) reviewerId?: string;
  @Field(() => ID, { nullable: true, description: 'For reverse: the decision being reversed; refused (INVALID_STATE) when another decision came in between.' }) reverses?: string;
}

@ObjectType({ description: 'A human decision and the session as it now stands.' })
export class DecideSessionPayload {
  @Field(() => SessionDecision) decision: SessionDecision;
  @Field(() => Session) session: Session;
}
