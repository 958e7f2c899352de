import fs from 'node:fs';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';

/** ffmpeg from the `@ffmpeg-installer/linux-x64` devDependency (a binary inside an npm package; no apt). */
export function ffmpegPath(): string {
  const p = ffmpegInstaller.path;
  try {
    fs.accessSync(p, fs.constants.X_OK);
  } catch {
    fs.chmodSync(p, 0o755); // npm may skip the package's postinstall chmod
  }
  return p;
}
