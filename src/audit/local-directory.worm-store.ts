import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { WormStore } from './worm-store';

/**
 * The default WormStore (AUDIT_ARCHIVE_DIR): each segment is created exclusively (`wx`: an
 * existing file is never opened for writing), flushed, then made read-only (0444). Pair it with
 * storage that enforces immutability for a real guarantee (a WORM mount, a backup with retention);
 * on its own it stops mistakes, not an administrator.
 */
export class LocalDirectoryWormStore implements WormStore {
  constructor(private readonly dir: string) {}

  get description(): string {
    return `directory ${this.dir}`;
  }

  private pathOf(key: string): string {
    if (key.split('/').some((p) => p === '..' || p === '' || p === '.') || path.isAbsolute(key)) throw new Error(`invalid segment key ${key}`);
    return path.join(this.dir, ...key.split('/'));
  }

  async put(key: string, body: Buffer): Promise<'written' | 'exists'> {
    const file = this.pathOf(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, 'wx', 0o444);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
      throw err;
    }
    try {
      await handle.writeFile(body);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.chmod(file, 0o444);
    return 'written';
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
}
