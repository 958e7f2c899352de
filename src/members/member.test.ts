import { isMemberRole, needsSecondFactor, roleAtLeast } from './member';

describe('member roles', () => {
  it('orders the roles owner > admin > reviewer > viewer', () => {
    expect(roleAtLeast('owner', 'admin')).toBe(true);
    expect(roleAtLeast('admin', 'admin')).toBe(true);
    expect(roleAtLeast('reviewer', 'admin')).toBe(false);
    expect(roleAtLeast('viewer', 'reviewer')).toBe(false);
    expect(roleAtLeast('viewer', 'viewer')).toBe(true);
  });

  it('asks a second factor of the roles that see evidence only', () => {
    expect(['owner', 'admin', 'reviewer', 'viewer'].filter((r) => isMemberRole(r) && needsSecondFactor(r))).toEqual(['owner', 'admin', 'reviewer']);
  });

  it('knows no role beyond the four', () => {
    for (const v of ['Owner', 'root', '', null, 'constructor']) expect(isMemberRole(v)).toBe(false);
  });
});
