import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';

let registered = false;

/**
 * Lets tfjs load `file://` model URLs from disk (tfjs-node, which has this, does not install here).
 * Reads the graph model's JSON and its weight shards; nothing goes to the network.
 */
export function registerFileModelLoader(): void {
  if (registered) return;
  registered = true;
  const router = (url: string | string[]): tf.io.IOHandler | null => {
    if (typeof url !== 'string' || !url.startsWith('file://')) return null;
    const file = url.slice('file://'.length);
    return {
      load: async () => {
        const json = JSON.parse(await fs.promises.readFile(file, 'utf8'));
        const dir = path.dirname(file);
        const weightSpecs: tf.io.WeightsManifestEntry[] = [];
        const shards: Buffer[] = [];
        for (const group of json.weightsManifest as tf.io.WeightsManifestConfig) {
          weightSpecs.push(...group.weights);
          for (const p of group.paths) shards.push(await fs.promises.readFile(path.join(dir, p)));
        }
        const all = Buffer.concat(shards);
        return {
          modelTopology: json.modelTopology,
          format: json.format,
          generatedBy: json.generatedBy,
          convertedBy: json.convertedBy,
          signature: json.signature,
          userDefinedMetadata: json.userDefinedMetadata,
          weightSpecs,
          weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer,
        };
      },
    };
  };
  // tfjs types a router as always returning a handler, but the registry skips a null one (that is how it chooses).
  tf.io.registerLoadRouter(router as Parameters<typeof tf.io.registerLoadRouter>[0]);
}
