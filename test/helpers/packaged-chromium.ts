import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';

/** Where the packaged Chromium is unpacked, and the environment it needs to start. */
export type PackagedChromium = { executablePath: string; env: Record<string, string> };

/** Lets another process that crashed mid-unpack be taken over; unpacking takes about 15 s here. */
const STALE_LOCK_MS = 5 * 60_000;

/**
 * The Chromium shipped in the `@sparticuz/chromium` devDependency (brotli-packed, for AWS Lambda),
 * unpacked once per machine and version into the temp directory. Not through the package's own
 * `executablePath()`: that writes fixed /tmp paths in place, so parallel jest workers would start a
 * half-written binary, and a crash mid-write leaves one that is reused for ever. Here one process
 * unpacks into a scratch folder under a lock and renames it into place when complete.
 *
 * Besides the binary it unpacks the package's NSS/NSPR/expat libraries (its `al2023` archive, made
 * for Lambda's Amazon Linux; they load on Debian too), so nothing from apt is needed but glibc, and
 * its Open Sans fonts with a fonts.conf of our own (the package's names /tmp/fonts).
 */
export async function packagedChromium(): Promise<PackagedChromium> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`@sparticuz/chromium ships Linux x64 only; on ${process.platform}/${process.arch} set CHROMIUM_PATH to a Chromium or Chrome binary`);
  }
  const bin = path.join(path.dirname(require.resolve('@sparticuz/chromium')), '..', 'bin');
  const { version } = JSON.parse(fs.readFileSync(path.join(bin, '..', 'package.json'), 'utf8')) as { version: string };
  const dir = path.join(os.tmpdir(), `ivs-chromium-${version}`);
  const found: PackagedChromium = {
    executablePath: path.join(dir, 'chromium'),
    env: { LD_LIBRARY_PATH: path.join(dir, 'lib'), FONTCONFIG_PATH: dir },
  };
  const lock = `${dir}.lock`;
  for (;;) {
    if (fs.existsSync(dir)) return found;
    try {
      fs.mkdirSync(lock);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const held = fs.statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (!fs.existsSync(dir)) await unpack(bin, dir);
      return found;
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

async function unpack(bin: string, dir: string): Promise<void> {
  const scratch = fs.mkdtempSync(`${dir}.partial-`);
  try {
    await Promise.all([
      pipeline(fs.createReadStream(path.join(bin, 'chromium.br')), createBrotliDecompress(), fs.createWriteStream(path.join(scratch, 'chromium'), { mode: 0o755 })),
      untar(path.join(bin, 'al2023.tar.br'), scratch), // lib/libnss3.so ...
      untar(path.join(bin, 'fonts.tar.br'), scratch), // fonts/Open_Sans/*.ttf
      untar(path.join(bin, 'swiftshader.tar.br'), scratch), // libGLESv2.so ... beside the binary, where Chromium looks
    ]);
    fs.writeFileSync(
      path.join(scratch, 'fonts.conf'),
      `<?xml version="1.0"?>\n<fontconfig><dir>${dir}/fonts</dir><cachedir>${dir}/fonts-cache</cachedir></fontconfig>\n`,
    );
    fs.renameSync(scratch, dir);
  } catch (e) {
    fs.rmSync(scratch, { recursive: true, force: true });
    throw e;
  }
}

/**
 * Debian's `tar` (essential, so on every machine) unpacks the archive the package brotli-packed. Through
 * a file, not a pipe: tar exits at the end-of-archive blocks, before the padding after them is written.
 */
async function untar(archive: string, into: string): Promise<void> {
  const plain = path.join(into, `${path.basename(archive, '.br')}`);
  await pipeline(fs.createReadStream(archive), createBrotliDecompress(), fs.createWriteStream(plain));
  await new Promise<void>((resolve, reject) => {
    execFile('tar', ['-x', '--no-same-owner', '-f', plain, '-C', into], (error) => (error ? reject(error) : resolve()));
  });
  fs.rmSync(plain);
}
