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
    for (const bad of ['', 'not-base64!', Buffer.from('["x","y"]').toString('base64url'), Buffer.from('{}').toString('base64url')]) {
      expect(() => decodeQueueCursor(bad)).toThrow(DomainError);
    }
  });
});
