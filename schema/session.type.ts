import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, ObjectType } from 'type-graphql';
import { CheckStatusEnum, CheckVerdictEnum, DecisionEnum, SessionStatusEnum, TierEnum } from './enums';

@ObjectType({ description: 'One check that contributed to a decision.' })
export class Check {
  @Field() name: string;
  @Field(() => CheckStatusEnum) status: string;
  @Field(() => Float, { nullable: true }) score?: number;
  @Field({ nullable: true }) reason?: string;
  @Field(() => CheckVerdictEnum, { nullable: true, description: "The engine's own verdict (null in results decided before it was recorded)." }) verdict?: string;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'What the check read: for a T4 registry check, the normalized registry record, the name match and the flags.' })
  details?: Record<string, unknown>;
}

@ObjectType({ description: 'A scored signal behind the decision.' })
export class Signal {
  @Field() source: string;
  @Field(() => Float) score: number;
}

@ObjectType({ description: 'Why a sanctions entry matched.' })
export class SanctionsReason {
  @Field() feature: string;
  @Field(() => Float) score: number;
  @Field() detail: string;
}

@ObjectType({ description: 'A sanctions-list entry that matched the verified person.' })
export class SanctionsHit {
  @Field() list: string;
  @Field({ description: 'The record key within the list version (UN DATAID, EU logical id, OFAC uid, UK unique id, DFAT reference).' }) entryId: string;
  @Field({ description: "The list's own reference, the one a compliance officer looks up: UN permanent reference (CDi.008), OFAC entry number, EU reference (EU.3579.2), UK unique id (RUS0001), DFAT reference." })
  reference: string;
  @Field() programme: string;
  @Field() subjectType: string;
  @Field() matchedName: string;
  @Field(() => Float) score: number;
  @Field(() => [SanctionsReason]) reasons: SanctionsReason[];
  @Field() listVersion: string;
}

@ObjectType({ description: 'The outcome of a session once it has been decided.' })
export class Result {
  @Field(() => DecisionEnum) decision: string;
  @Field(() => TierEnum) achievedTier: string;
  @Field(() => Float, { description: 'Between 0 and 1 inclusive.' }) confidence: number;
  @Field(() => [Check]) checks: Check[];
  @Field(() => [String], { description: 'Pre-signed, time-limited links to evidence.' }) evidenceUrls: string[];
  @Field(() => [String]) badges: string[];
  @Field(() => [Signal]) signals: Signal[];
  @Field(() => [SanctionsHit], { nullable: true, description: 'Present for T3 and T4.' }) sanctionsHits?: SanctionsHit[];
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'T5 only: the ICAO 9303 Passive Authentication result. It does not verify the holder against any government database.',
  })
  chip?: Record<string, unknown>;
}

@ObjectType({ description: 'A verification session.' })
export class Session {
  @Field(() => ID) id: string;
  @Field(() => String, { nullable: true, description: 'Where to send the end user: in the createSession answer, and in reads with a tenant key while the session is CREATED or IN_PROGRESS (signed at the read); null otherwise, and always null for a client secret or a user token. The link stops working an hour after a terminal status.' })
  hostedUrl: string | null;
  @Field(() => SessionStatusEnum) status: string;
  @Field(() => TierEnum) tier: string;
  @Field({ nullable: true }) referenceId?: string;
  @Field(() => String, { nullable: true, description: "This tenant's subject of the user the session is bound to, if any." }) userSub?: string | null;
  @Field(() => Result, { nullable: true }) result?: Result;
  @Field() createdAt: Date;
  @Field(() => Date, { nullable: true }) completedAt: Date | null;
  @Field() expiresAt: Date;
  @Field({ description: 'False for sessions created with a test key.' }) livemode: boolean;
  @Field(() => ID) flowId: string;
  @Field({ nullable: true }) redirectUrl?: string;
  @Field() locale: string;
  @Field(() => GraphQLJSONObject) metadata: Record<string, unknown>;
  @Field({ nullable: true, description: 'The browser credential for this session; returned by createSession only.' })
  clientSecret?: string;
}
