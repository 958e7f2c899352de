import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createAwsProviders } from './aws-providers';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'aws');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const image = { bytes: Buffer.from('not-really-a-jpeg'), contentType: 'image/jpeg' };
const now = new Date('2026-11-23T00:00:00Z');

/** `hold`: never answered (until the suite ends), so only the client's own timeout can end the call. */
type Reply = { status?: number; body: string; hold?: boolean };

/** A local stand-in for the AWS JSON endpoints: answers by `X-Amz-Target` with the reply the test set. */
describe('AWS adapters against AWS-documented responses served locally', () => {
  const replies = new Map<string, Reply>();
  const seen: { target: string; body: Record<string, unknown> }[] = [];
  let server: http.Server;
  let providers: ReturnType<typeof createAwsProviders>;
  /** The same adapters with a short timeout, for the one test of it: the others wait as long as a loaded machine needs. */
  let impatient: ReturnType<typeof createAwsProviders>;
  const held: http.ServerResponse[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const target = String(req.headers['x-amz-target'] ?? '');
        seen.push({ target, body: JSON.parse(raw || '{}') });
        const reply = replies.get(target) ?? { status: 400, body: JSON.stringify({ __type: 'UnknownOperationException', message: target }) };
        const send = () => {
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'test' });
          res.end(reply.body);
        };
        if (reply.hold) held.push(res);
        else send();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', AWS_EC2_METADATA_DISABLED: 'true' });
    const { port } = server.address() as AddressInfo;
    providers = createAwsProviders({ region: 'eu-west-1', endpoint: `http://127.0.0.1:${port}`, timeoutMs: 60_000 });
    impatient = createAwsProviders({ region: 'eu-west-1', endpoint: `http://127.0.0.1:${port}`, timeoutMs: 1500 });
  });
  afterAll(async () => {
    providers.close();
    impatient.close();
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    process.env = saved;
  });
  beforeEach(() => {
    replies.clear();
    seen.length = 0;
  });

  it('CompareFaces: similarity 100 passes, with the selfie sent as the source and the document as the target', async () => {
    replies.set('RekognitionService.CompareFaces', { body: fixture('compare-faces.match.json') });
    const r = await providers.faceMatcher.match({ document: { ...image, bytes: Buffer.from('doc') }, selfie: { ...image, bytes: Buffer.from('selfie') } });
    expect(r).toMatchObject({ verdict: 'pass', score: 1, model: { provider: 'aws', model: 'rekognition-compare-faces' } });
    expect(seen[0].body).toMatchObject({ SourceImage: { Bytes: Buffer.from('selfie').toString('base64') }, TargetImage: { Bytes: Buffer.from('doc').toString('base64') } });
  });

  it('CompareFaces: an unmatched face fails', async () => {
    replies.set('RekognitionService.CompareFaces', { body: fixture('compare-faces.no-match.json') });
    const r = await providers.faceMatcher.match({ document: image, selfie: image });
    expect(r).toMatchObject({ verdict: 'fail', score: 0, reason: 'The selfie does not match the document photo (similarity 0 of 100).' });
  });

  it('a service error or a timeout makes the check error, never a pass', async () => {
    replies.set('RekognitionService.CompareFaces', { status: 400, body: JSON.stringify({ __type: 'InvalidImageFormatException', message: 'Request has invalid image format' }) });
    const bad = await providers.faceMatcher.match({ document: image, selfie: image });
    expect(bad.verdict).toBe('error');
    expect(bad.reason).toMatch(/InvalidImageFormatException/);
    replies.set('RekognitionService.CompareFaces', { body: fixture('compare-faces.match.json'), hold: true });
    const slow = await impatient.faceMatcher.match({ document: image, selfie: image });
    expect(slow).toMatchObject({ verdict: 'error', reason: 'rekognition-compare-faces did not answer within 1500 ms.' });
  });

  it('Textract AnalyzeID: a US passport MRZ_CODE is validated with every check digit and its fields returned', async () => {
    replies.set('Textract.AnalyzeID', { body: fixture('analyze-id.us-passport.json') });
    const r = await providers.documentReader.read({ images: [image], now });
    expect(r.verdict).toBe('pass');
    expect(r.mrz?.fields).toMatchObject({ format: 'TD3', surname: 'SAMPLE', givenNames: 'JENNIFER', documentNumber: '963545637', dateOfBirth: '1985-07-28', expiryDate: '2030-12-02' });
    expect(seen.map((s) => s.target)).toEqual(['Textract.AnalyzeID']);
  });

  it('Textract: without MRZ_CODE it reads the lines of DetectDocumentText and parses them with mrz', async () => {
    replies.set('Textract.AnalyzeID', { body: fixture('analyze-id.no-mrz.json') });
    replies.set('Textract.DetectDocumentText', { body: fixture('detect-document-text.td1.json') });
    const r = await providers.documentReader.read({ images: [image], now });
    expect(r.reason).toMatch(/TD1 MRZ holds/);
    expect(r.mrz?.fields).toMatchObject({ surname: 'VAN DER BERG', givenNames: 'SANNE', documentNumber: 'XN4021K87' });
    expect(r.model.model).toBe('textract-detect-document-text');
  });

  it('Textract: a tampered check digit in the returned MRZ fails and names the field', async () => {
    replies.set('Textract.AnalyzeID', { body: fixture('analyze-id.us-passport.json').replace('8507284F', '8507294F') });
    const r = await providers.documentReader.read({ images: [image], now });
    expect(r.verdict).toBe('fail');
    expect(r.reason).toMatch(/birth date check digit/i);
  });

  it('Face Liveness: SUCCEEDED with high confidence passes liveness and anti-spoof; low confidence fails; no session id is an error', async () => {
    replies.set('RekognitionService.GetFaceLivenessSessionResults', { body: fixture('face-liveness.succeeded.json') });
    const challenge = { id: 'c', issuedAt: 0, steps: [] };
    const sid = '0f959dbb-37cc-45d8-a08d-dc42cce85fa8';
    const live = await providers.livenessVerifier.verify({ challenge, frames: [], referenceFaces: [], managedSessionId: sid });
    expect(live).toMatchObject({ verdict: 'pass', score: 0.985 });
    expect(seen[0].body).toEqual({ SessionId: sid });
    const spoof = await providers.presentationAttackDetector.detect({ selfie: image, frames: [], managedSessionId: sid });
    expect(spoof.verdict).toBe('pass');
    replies.set('RekognitionService.GetFaceLivenessSessionResults', { body: fixture('face-liveness.low-confidence.json') });
    expect(await providers.presentationAttackDetector.detect({ selfie: image, frames: [], managedSessionId: sid })).toMatchObject({ verdict: 'fail', score: 0.1225 });
    expect(await providers.livenessVerifier.verify({ challenge, frames: [], referenceFaces: [] })).toMatchObject({ verdict: 'error' });
  });
});
