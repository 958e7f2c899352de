import { Arg, Ctx, ID, Query, Resolver, Root, Subscription } from 'type-graphql';
import { requireTenantKey } from '../src/auth/auth.service';
import type { BulkImport as BulkImportRecord, BulkImportService } from '../src/bulk-import/bulk-import.service';
import type { RequestContext } from '../src/context';
import { DomainError, notFound } from '../src/errors';
import type { SubscriptionContext } from './session-subscription.resolver';
import { BulkImport } from './bulk-import.type';

const toBulkImport = (b: BulkImportRecord): BulkImport => ({ ...b });

/** Thin transport over BulkImportService: the same rule as REST (a tenant key with sessions:write; another tenant's or mode's import is not found). */
@Resolver()
export class BulkImportResolver {
  constructor(private readonly imports: BulkImportService) {}

  @Query(() => BulkImport, { nullable: true, description: "A bulk import of the key's tenant and mode (scope sessions:write); null for any other." })
  async bulkImport(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<BulkImport | null> {
    const actor = requireTenantKey(ctx.actor, 'sessions:write');
    const found = await this.imports.find(actor, id);
    return found && toBulkImport(found);
  }

  @Subscription(() => BulkImport, {
    name: 'bulkImport',
    description:
      'Progress of one bulk import (scope sessions:write): its state at once, then each change of its counters, ending after it completes. ' +
      'Read from the database, so every instance reports the same progress. Over WebSocket (graphql-transport-ws) at /graphql.',
    subscribe: async ({ args, context }) => {
      const actor = requireTenantKey((context as RequestContext).actor, 'sessions:write');
      // type-graphql calls `subscribe` without the resolver instance: the WebSocket transport puts the service in the context.
      const imports = (context as SubscriptionContext).bulkImports;
      if (!imports) throw new DomainError('invalid_request', 'Subscriptions run over WebSocket (graphql-transport-ws) at /graphql');
      const first = await imports.find(actor, String((args as { id: unknown }).id));
      if (!first) throw notFound('Bulk import');
      return imports.progress(actor, first);
    },
  })
  bulkImportProgress(@Root() event: BulkImportRecord, @Arg('id', () => ID) _id: string): BulkImport {
    return toBulkImport(event);
  }
}
