import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { DsrJob } from './dsr-job.type';

@ObjectType({ description: "A human review of a verification decision, opened at the end user's request (docs/data-rights.md, \"Review\")." })
export class ReviewCase {
  @Field(() => ID) id: string;
  @Field(() => ID, { description: 'The session (verification) under review.' }) verificationId: string;
  @Field({ description: 'open or decided.' }) status: string;
  @Field(() => String, { nullable: true, description: 'upheld, approved or declined, once decided.' }) decision: string | null;
  @Field({ description: "The user's reason. Internal tools only." }) reason: string;
  @Field(() => String, { nullable: true }) note: string | null;
  @Field(() => ID) dsrJobId: string;
  @Field() createdAt: Date;
  @Field(() => Date, { nullable: true }) decidedAt: Date | null;
}

@ObjectType({ description: 'A requested change of a verified profile field, waiting for internal tools (docs/data-rights.md, "Rectification").' })
export class ProfileChange {
  @Field(() => ID) id: string;
  @Field(() => ID) userId: string;
  @Field({ description: 'legal_name, date_of_birth or nationality.' }) field: string;
  @Field() value: string;
  @Field({ description: 'pending, approved or rejected.' }) status: string;
  @Field(() => ID) dsrJobId: string;
  @Field() createdAt: Date;
  @Field(() => Date, { nullable: true }) decidedAt: Date | null;
  @Field(() => String, { nullable: true }) note: string | null;
}

@ObjectType({ description: 'A verified field change waiting for review, as its user sees it.' })
export class PendingProfileChange {
  @Field(() => ID) id: string;
  @Field() field: string;
  @Field() value: string;
  @Field() requestedAt: string;
  @Field(() => ID) dsrJobId: string;
}

@ObjectType({ description: 'An objection to a kind of processing.' })
export class Objection {
  @Field() processing: string;
  @Field() objectedAt: string;
}

@ObjectType({
  description:
    "The signed-in end user's profile: self-managed and verified fields, objections and pending changes. A tenant's client sees its pairwise subject, the self-managed fields with scope profile, and nothing of the whole account (null); the account portal sees everything.",
})
export class MyProfile {
  @Field({ description: "The token's subject (the tenant's pairwise subject of the user)." }) sub: string;
  @Field(() => ID, { nullable: true, description: 'The account id (usr_...): the account portal only.' }) id: string | null;
  @Field(() => String, { nullable: true }) displayName: string | null;
  @Field(() => String, { nullable: true }) handle: string | null;
  @Field(() => [String], { nullable: true, description: 'With scope profile (or the account portal); null otherwise.' }) publicLinks: string[] | null;
  @Field(() => String, { nullable: true }) bio: string | null;
  @Field(() => String, { nullable: true, description: 'The account portal only.' }) legalName: string | null;
  @Field(() => String, { nullable: true, description: 'The account portal only.' }) dateOfBirth: string | null;
  @Field(() => String, { nullable: true, description: 'The account portal only.' }) nationality: string | null;
  @Field({ description: 'active or restricted.' }) state: string;
  @Field(() => [Objection], { nullable: true, description: 'The account portal only.' }) objections: Objection[] | null;
  @Field(() => [PendingProfileChange], { nullable: true, description: 'The account portal only.' }) pendingChanges: PendingProfileChange[] | null;
}

@InputType({ description: 'Fields to change; verified ones (legalName, dateOfBirth, nationality) go to review.' })
export class UpdateMyProfileInput {
  @Field(() => String, { nullable: true }) displayName?: string | null;
  @Field(() => String, { nullable: true }) handle?: string | null;
  @Field(() => [String], { nullable: true }) publicLinks?: string[] | null;
  @Field(() => String, { nullable: true }) bio?: string | null;
  @Field(() => String, { nullable: true }) legalName?: string | null;
  @Field(() => String, { nullable: true }) dateOfBirth?: string | null;
  @Field(() => String, { nullable: true }) nationality?: string | null;
}

@ObjectType({ description: 'A review request: its DSR job and its case.' })
export class VerificationReviewRequest {
  @Field(() => DsrJob) job: DsrJob;
  @Field(() => ReviewCase) reviewCase: ReviewCase;
}
