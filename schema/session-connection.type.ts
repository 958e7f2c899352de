import { Field, ObjectType } from 'type-graphql';
import { Session } from './session.type';

@ObjectType()
export class PageInfo {
  @Field() hasNextPage: boolean;
  @Field(() => String, { nullable: true }) endCursor: string | null;
}

@ObjectType()
export class SessionEdge {
  @Field() cursor: string;
  @Field(() => Session) node: Session;
}

@ObjectType({ description: 'A page of sessions, newest first.' })
export class SessionConnection {
  @Field(() => [SessionEdge]) edges: SessionEdge[];
  @Field(() => PageInfo) pageInfo: PageInfo;
}
