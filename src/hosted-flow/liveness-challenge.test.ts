import { frameProblem, issueChallenge, STEP_WINDOW_MS } from './liveness-challenge';

describe('issueChallenge', () => {
  it('issues 2 or 3 distinct actions with their own nonces and consecutive windows', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const c = issueChallenge(1_000_000);
      expect(c.steps.length).toBeGreaterThanOrEqual(2);
      expect(c.steps.length).toBeLessThanOrEqual(3);
      expect(new Set(c.steps.map((s) => s.action)).size).toBe(c.steps.length);
      expect(new Set(c.steps.map((s) => s.nonce)).size).toBe(c.steps.length);
      c.steps.forEach((s, k) => {
        expect(s.closesAt - s.opensAt).toBe(STEP_WINDOW_MS);
        if (k > 0) expect(s.opensAt).toBe(c.steps[k - 1].closesAt);
      });
      seen.add(c.steps.map((s) => s.action).join(','));
    }
    expect(seen.size).toBeGreaterThan(10); // random, not a fixed script
  });

  it('accepts a frame only for its step, nonce and window', () => {
    const c = issueChallenge(0);
    const s = c.steps[1];
    const ok = { stepIndex: 1, nonce: s.nonce, capturedAt: s.opensAt + 10 };
    expect(frameProblem(c, ok, s.opensAt + 100)).toBeNull();
    expect(frameProblem(c, { ...ok, nonce: c.steps[0].nonce }, s.opensAt + 100)).toMatch(/nonce/);
    expect(frameProblem(c, { ...ok, stepIndex: 7 }, s.opensAt + 100)).toMatch(/step/);
    expect(frameProblem(c, { ...ok, capturedAt: s.opensAt - 1 }, s.opensAt + 100)).toMatch(/window/);
    expect(frameProblem(c, ok, s.closesAt + 60_000)).toMatch(/closed/);
    // Received before its step opens: refused whatever captured_at the page claims (the server's time decides).
    expect(frameProblem(c, ok, s.opensAt - 1)).toMatch(/has not opened yet/);
    expect(frameProblem(c, ok, s.opensAt)).toBeNull();
  });
});
