import { DomainError } from '../errors';
import { decodeQueueCursor, encodeQueueCursor, reasonsOf } from './review-queue';

describe('review queue', () => {
  it('names why a session waits from its checks and an open review request', () => {
    expect(reasonsOf([{ name: 'face_match', status: 'fail', score: 0.64 }, { name: 'document_ocr', status: 'pass' }], false)).toEqual(['check_review']);
    expect(reasonsOf([{ name: 'anti_spoof', status: 'error' }, { name: 'liveness', status: 'fail' }], true)).toEqual(['check_review', 'check_error', 'review_request']);
    expect(reasonsOf([], false)).toEqual([]);
  });

  it('round-trips a cursor and refuses one that is not its own', () => {
    const c = encodeQueueCursor('2026-11-26 18:00:00.123456+00', 'vses_abc');
    expect(decodeQueueCursor(c)).toEqual({ at: '2026-11-26 18:00:00.123456+00', id: 'vses_abc' });
    // Issue #40 finding 10: `1` and `0` pass Date.parse but not PostgreSQL's timestamptz; a NUL in the id is no parameter at all.
    const made = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const bad of ['', 'not-base64!', made(['x', 'y']), made({}), made(['1', 'x']), made(['0', 'x']), made(['2026-11-26 18:00:00+00', 'vses_\u0000']), made(['2026-11-26 18:00:00+00', '\ud800'])]) {
      expect(() => decodeQueueCursor(bad)).toThrow(DomainError);
    }
  });
});
