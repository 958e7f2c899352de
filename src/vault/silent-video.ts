import { DomainError } from '../errors';
import { AudioTrackScanner } from './audio-track';

export type VideoType = 'video/mp4' | 'video/webm';

/**
 * Passes an uploaded video's bytes through while reading its track list, and throws before the
 * last byte is handed on when the video holds an audio track (`audio_not_allowed`: voice is data the
 * service never collects) or when its tracks cannot be read. The consumer (the vault) stores
 * nothing until the body has ended, so a refused video leaves nothing behind.
 */
export async function* refusingAudio(body: AsyncIterable<Buffer | string>, type: VideoType): AsyncGenerator<Buffer> {
  const scanner = new AudioTrackScanner(type);
  for await (const raw of body) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    scanner.push(chunk);
    if (scanner.verdict === 'audio') throw audioNotAllowed();
    yield chunk;
  }
  const verdict = scanner.end();
  if (verdict === 'audio') throw audioNotAllowed();
  if (verdict === 'unreadable') throw new DomainError('unsupported_media_type', `The ${type} video's track list could not be read, so it cannot be shown to hold no audio`);
}

function audioNotAllowed(): DomainError {
  return new DomainError('audio_not_allowed', 'The video has an audio track: liveness videos are taken without sound (the service never collects voice). Record video only.');
}
