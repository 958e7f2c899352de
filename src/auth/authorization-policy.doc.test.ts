import fs from 'node:fs';
import path from 'node:path';
import { renderAuthorizationPolicyDoc, withGeneratedSection } from './authorization-policy.doc';
import { ALL_ROUTE_POLICY } from '../../rest-adapter/v1-routes';

describe('docs/security.md, authorization policy', () => {
  it('is what the policy table generates (run npm run docs:security after changing the table)', () => {
    const doc = fs.readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'security.md'), 'utf8');
    expect(withGeneratedSection(doc, renderAuthorizationPolicyDoc(ALL_ROUTE_POLICY))).toBe(doc);
  });
});
