/**
 * The RETURNING rows of an UPDATE or DELETE run through TypeORM's `query`, which on PostgreSQL
 * answers those as `[rows, affectedCount]` (and an INSERT or SELECT as the rows alone).
 */
export function updatedRows<Row>(result: unknown): Row[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as Row[];
  return result as Row[];
}
