import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A bulk import of sessions (REST: POST /v1/admin/bulk-import; docs/api-behaviour.md, "Bulk import").' })
export class BulkImport {
  @Field(() => ID, { description: 'bimp_...' }) id: string;
  @Field() livemode: boolean;
  @Field({ description: 'queued, processing or completed.' }) status: string;
  @Field(() => Int, { description: 'Records in the import.' }) total: number;
  @Field(() => Int, { description: 'Sessions created so far.' }) created: number;
  @Field(() => Int, { description: 'Records whose reference_id already named a session of the tenant (in this mode).' }) duplicates: number;
  @Field(() => Int, { description: 'Records refused, each with its line and reason in the results.' }) rejected: number;
  @Field() createdAt: Date;
  @Field(() => Date, { nullable: true }) completedAt: Date | null;
}
