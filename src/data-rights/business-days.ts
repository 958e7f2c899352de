/**
 * Business days (docs/data-rights.md, "Deadlines"): Monday to Friday in UTC; Saturdays and
 * Sundays do not count, and no public holiday is skipped (the service has no calendar of its
 * users' countries, so it promises the stricter deadline). Adding n business days moves to the
 * n-th following weekday at the same time of day: Friday 10:00 + 3 is Wednesday 10:00, and a
 * request received on Saturday or Sunday + 3 is Wednesday at that time.
 */
export function addBusinessDays(from: Date, days: number): Date {
  if (!Number.isInteger(days) || days < 0) throw new RangeError('days must be a non-negative integer');
  const d = new Date(from.getTime());
  let left = days;
  while (left > 0) {
    d.setUTCDate(d.getUTCDate() + 1);
    if (isBusinessDay(d)) left--;
  }
  return d;
}

export function isBusinessDay(d: Date): boolean {
  const day = d.getUTCDay();
  return day !== 0 && day !== 6;
}

export function addDays(from: Date, days: number): Date {
  return new Date(from.getTime() + days * 86_400_000);
}
