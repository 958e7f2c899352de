/**
 * SQL that a statement of another module embeds to read a session beside its own rows, so the statement
 * stays ONE statement (one round trip, one snapshot; hot paths such as the hosted page's keep callback)
 * while the sessions table keeps one owner, src/sessions/ (issue 45). Each fragment gives the caller only
 * what its name says. `sessionIdSql` and the other arguments are the caller's SQL expressions (a column
 * of its own row, a parameter placeholder), never input; the inner alias `own_s` stays clear of the
 * caller's aliases.
 */
export class SessionSql {
  /** A join that gives each of the caller's rows its session's `tenant_id`, `tier` and `livemode` as columns of `alias` (rows without a session drop out, as an inner join). */
  static scopeJoin(alias: string, sessionIdSql: string): string {
    return `JOIN (SELECT id, tenant_id, tier, livemode FROM sessions) ${alias} ON ${alias}.id = ${sessionIdSql}`;
  }

  /** True when session `sessionIdSql` completed after `atSql`. */
  static completedAfter(sessionIdSql: string, atSql: string): string {
    return `EXISTS (SELECT 1 FROM sessions own_s WHERE own_s.id = ${sessionIdSql} AND own_s.completed_at > ${atSql})`;
  }

  /** True when session `sessionIdSql` has not completed (it is still running, or never ran). */
  static notCompleted(sessionIdSql: string): string {
    return `EXISTS (SELECT 1 FROM sessions own_s WHERE own_s.id = ${sessionIdSql} AND own_s.completed_at IS NULL)`;
  }

  /** True when session `sessionIdSql`'s status is one of `statusesSql` (a text[] expression). */
  static statusIn(sessionIdSql: string, statusesSql: string): string {
    return `EXISTS (SELECT 1 FROM sessions own_s WHERE own_s.id = ${sessionIdSql} AND own_s.status = ANY(${statusesSql}))`;
  }

  /**
   * The latest `limit` sessions bound to user `userIdSql`, newest first, as a JSON array of
   * `{ id, status, tier, livemode, created_at, completed_at }` (`[]`: none): at tenant `tenantIdSql`
   * only, or at every tenant when it is ''.
   */
  static latestOfUserJson(userIdSql: string, tenantIdSql: string, limit: number): string {
    return `(SELECT coalesce(json_agg(x), '[]'::json) FROM (SELECT id, status, tier, livemode, created_at, completed_at FROM sessions
                   WHERE user_id = ${userIdSql} AND (${tenantIdSql} = '' OR tenant_id = ${tenantIdSql}) ORDER BY created_at DESC, id DESC LIMIT ${Math.trunc(limit)}) x)`;
  }

  /** The ids of the sessions bound to user `userIdSql` (a subquery, for `IN`). */
  static idsOfUser(userIdSql: string): string {
    return `(SELECT id FROM sessions WHERE user_id = ${userIdSql})`;
  }

  /** True when a session bound to user `userIdSql` holds the `photo` badge (the user's claim keeps `photo` only then). */
  static userHasPhotoBadge(userIdSql: string): string {
    return `EXISTS (SELECT 1 FROM sessions own_s WHERE own_s.user_id = ${userIdSql} AND own_s.result->'badges' ? 'photo')`;
  }

  /** True when session `sessionIdSql` is tenant `tenantIdSql`'s (of either mode). */
  static isOfTenant(sessionIdSql: string, tenantIdSql: string): string {
    return `EXISTS (SELECT 1 FROM sessions own_s WHERE own_s.id = ${sessionIdSql} AND own_s.tenant_id = ${tenantIdSql})`;
  }
}
