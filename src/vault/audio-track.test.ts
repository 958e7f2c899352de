import fs from 'node:fs';
import path from 'node:path';
import { AudioTrackScanner, type AudioVerdict } from './audio-track';

const FIXTURES = path.join(__dirname, '../../test/fixtures/video');
const bytesOf = (name: string) => fs.readFileSync(path.join(FIXTURES, name));
const typeOf = (name: string) => (name.endsWith('.mp4') ? 'video/mp4' : 'video/webm') as 'video/mp4' | 'video/webm';

/** Feeds the bytes in chunks of `chunkSize`, as an upload arrives, and returns the verdict at the end. */
function scan(type: 'video/mp4' | 'video/webm', bytes: Buffer, chunkSize = bytes.length): AudioVerdict {
  const scanner = new AudioTrackScanner(type);
  for (let at = 0; at < bytes.length; at += chunkSize) scanner.push(bytes.subarray(at, at + chunkSize));
  return scanner.end();
}

describe('AudioTrackScanner', () => {
  const cases: [string, AudioVerdict][] = [
    ['silent.webm', 'no_audio'],
    ['with-audio.webm', 'audio'],
    ['with-audio-streamed.webm', 'audio'],
    ['silent.mp4', 'no_audio'],
    ['with-audio.mp4', 'audio'],
    ['with-audio-faststart.mp4', 'audio'],
    ['with-audio-fragmented.mp4', 'audio'],
  ];

  it.each(cases)('reads %s as %s, whole or 7 bytes at a time', (name, verdict) => {
    expect(scan(typeOf(name), bytesOf(name))).toBe(verdict);
    expect(scan(typeOf(name), bytesOf(name), 7)).toBe(verdict);
  });

  it('knows before the end of a video whose track list comes first', () => {
    const bytes = bytesOf('with-audio-faststart.mp4');
    const scanner = new AudioTrackScanner('video/mp4');
    scanner.push(bytes.subarray(0, bytes.length / 2));
    expect(scanner.verdict).toBe('audio');
    const webm = bytesOf('with-audio-streamed.webm');
    const w = new AudioTrackScanner('video/webm');
    w.push(webm.subarray(0, 1_000));
    expect(w.verdict).toBe('audio');
  });

  it('calls unreadable what has no track list: truncated, garbage, or the other container', () => {
    const mp4 = bytesOf('with-audio.mp4');
    expect(scan('video/mp4', mp4.subarray(0, mp4.length - 200))).toBe('unreadable'); // moov cut short
    expect(scan('video/mp4', Buffer.from('not a video at all, just text'))).toBe('unreadable');
    expect(scan('video/webm', mp4)).toBe('unreadable');
    expect(scan('video/mp4', bytesOf('silent.webm'))).toBe('unreadable');
    const webm = bytesOf('silent.webm');
    expect(scan('video/webm', webm.subarray(0, 40))).toBe('unreadable');
    expect(scan('video/webm', Buffer.alloc(0))).toBe('unreadable');
  });
});
