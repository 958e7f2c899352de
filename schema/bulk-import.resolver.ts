import { Arg, Ctx, ID, Query, Resolver, Root, Subscription } from 'type-graphql';
import { requireTenantKey } from '../src/auth/auth.service';
import type { TenantScope } from '../src/auth/actor';
import type { BulkImport as BulkImportRecord, BulkImportService } from '../src/bulk-import/bulk-import.service';
import type { RequestContext } from '../src/context';
import { notFound } from '../src/errors';
import { BulkImport } from './bulk-import.type';

/** How often a `bulkImport` subscription reads its import's counters. */
const PROGRESS_POLL_MS = 250;

const toBulkImport = (b: BulkImportRecord): BulkImport => ({ ...b });

/**
 * type-graphql calls a field's `subscribe` without its resolver instance, so the one resolver of the
 * process leaves its service here when the composition root builds it.
 */
let progressSource: BulkImportService | null = null;

/** Thin transport over BulkImportService: the same rule as REST (a tenant key with sessions:write; another tenant's or mode's import is not found). */
@Resolver()
export class BulkImportResolver {
  constructor(private readonly imports: BulkImportService) {
    progressSource = imports;
  }

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
      if (!progressSource) throw new Error('BulkImportResolver was not built');
      const id = String((args as { id: unknown }).id);
      const first = await progressSource.find(actor, id);
      if (!first) throw notFound('Bulk import');
      return progressOf(progressSource, actor, first);
    },
  })
  bulkImportProgress(@Root() event: BulkImportRecord, @Arg('id', () => ID) _id: string): BulkImport {
    return toBulkImport(event);
  }
}

/** The import as it is, then again whenever its counters or status change, until it completes. */
async function* progressOf(imports: BulkImportService, scope: TenantScope, first: BulkImportRecord): AsyncGenerator<BulkImportRecord> {
  let last = first;
  yield first;
  while (last.status !== 'completed') {
    await new Promise((r) => setTimeout(r, PROGRESS_POLL_MS));
    const now = await imports.find(scope, first.id);
    if (!now) return;
    if (now.status !== last.status || now.created !== last.created || now.duplicates !== last.duplicates || now.rejected !== last.rejected) yield now;
    last = now;
  }
}
