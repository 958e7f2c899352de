import path from 'node:path';
import { FsBlobStore } from '../../src/vault/fs-blob-store';

/** The file the filesystem vault keeps a blob in, for a server started with the default VAULT_DIR (DATA_DIR/vault). */
export function blobFile(dataDir: string, key: string): string {
  return new FsBlobStore(path.join(dataDir, 'vault')).pathOf(key);
}
