import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { createCanvas } from '@napi-rs/canvas';
import type { ImageInput } from '../check-providers';
import type { AnalysisParts, DetectedFace, FaceAnalysis, FaceAnalyzer } from './face-analysis';
import { decodeImage, greyOf, laplacianVariance, toCanvas } from './image-tools';
import { registerFileModelLoader } from './tfjs-file-loader';

/** Larger photos are scaled down first: the detector works at 256 px, and this bounds a worker's memory. */
const MAX_SIDE = 1280;
/** Face crops are measured for sharpness at one size, so the measure does not depend on the photo's resolution. */
const SHARPNESS_SIDE = 112;
const DEG = 180 / Math.PI;

type HumanFace = {
  box: [number, number, number, number];
  score: number;
  embedding?: number[];
  rotation?: { angle: { yaw: number; pitch: number; roll: number } } | null;
  emotion?: { score: number; emotion: string }[];
  real?: number;
  live?: number;
};
type HumanInstance = { load(): Promise<void>; detect(input: tf.Tensor, config?: { face: { description: { enabled: boolean } } }): Promise<{ face: HumanFace[] }> };

/**
 * `@vladmandic/human` on the tfjs WASM backend, models read from the package on disk. One instance per
 * worker thread (loading takes ~130 ms and ~300 MB). `faceres` gives the embedding: the package's
 * `mobilefacenet` wiring scores every pair ~1.0. `cacheSensitivity: 0`, or Human reuses the previous
 * image's result for a similar-looking input. The embedding model runs only when asked (`AnalysisParts`):
 * Human merges a call's config into its own for good, so every call says whether faceres runs, and calls
 * are made one at a time.
 */
export class HumanFaceAnalyzer implements FaceAnalyzer {
  /** The last analysis started: the next one waits for it (one model, one call's config at a time). */
  private running: Promise<unknown> = Promise.resolve();

  private constructor(private readonly human: HumanInstance) {}

  static async start(): Promise<HumanFaceAnalyzer> {
    registerFileModelLoader();
    const humanDist = path.dirname(require.resolve('@vladmandic/human'));
    const wasmDist = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
    // The package's exports map hides its WASM build; require it by path.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path the exports map does not list
    const { Human } = require(path.join(humanDist, 'human.node-wasm.js')) as { Human: new (config: unknown) => HumanInstance };
    const human = new Human({
      backend: 'wasm',
      wasmPath: `${wasmDist}${path.sep}`,
      modelBasePath: `file://${path.resolve(humanDist, '..', 'models')}/`,
      cacheSensitivity: 0,
      debug: false,
      face: {
        enabled: true,
        detector: { rotation: false, maxDetected: 3, minConfidence: 0.3, return: false },
        mesh: { enabled: true },
        iris: { enabled: false },
        description: { enabled: true, modelPath: 'faceres.json' },
        emotion: { enabled: true },
        antispoof: { enabled: true },
        liveness: { enabled: true },
        attention: { enabled: false },
        gear: { enabled: false },
      },
      body: { enabled: false },
      hand: { enabled: false },
      object: { enabled: false },
      gesture: { enabled: false },
      segmentation: { enabled: false },
      filter: { enabled: false },
    });
    await human.load();
    return new HumanFaceAnalyzer(human);
  }

  analyze(image: ImageInput, parts: AnalysisParts = {}): Promise<FaceAnalysis> {
    // `running` never rejects (a failed analysis is caught below), so the next one always starts.
    const analysis = this.running.then(() => this.analyzeNow(image, parts.embedding !== false));
    this.running = analysis.catch(() => undefined);
    return analysis;
  }

  private async analyzeNow(image: ImageInput, embedding: boolean): Promise<FaceAnalysis> {
    const canvas = toCanvas(await decodeImage(image.bytes), MAX_SIDE);
    const side = Math.max(canvas.width, canvas.height);
    const fitted = side > MAX_SIDE ? toCanvas(canvas, (canvas.width * MAX_SIDE) / side) : canvas;
    const { data } = fitted.getContext('2d').getImageData(0, 0, fitted.width, fitted.height);
    const rgb = new Int32Array(fitted.width * fitted.height * 3);
    for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
      rgb[j] = data[i];
      rgb[j + 1] = data[i + 1];
      rgb[j + 2] = data[i + 2];
    }
    const tensor = tf.tensor(rgb, [1, fitted.height, fitted.width, 3], 'int32');
    let result;
    try {
      result = await this.human.detect(tensor, { face: { description: { enabled: embedding } } });
    } finally {
      tensor.dispose();
    }
    const faces: DetectedFace[] = result.face
      .filter((f) => !embedding || (f.embedding && f.embedding.length > 0))
      .map((f) => {
        const [x, y, w, h] = f.box;
        const crop = createCanvas(SHARPNESS_SIDE, SHARPNESS_SIDE);
        crop.getContext('2d').drawImage(fitted, x, y, w, h, 0, 0, SHARPNESS_SIDE, SHARPNESS_SIDE);
        const raw = embedding ? f.embedding! : [];
        const norm = Math.sqrt(raw.reduce((s, v) => s + v * v, 0)) || 1;
        return {
          box: f.box,
          score: f.score,
          embedding: raw.map((v) => v / norm),
          yaw: (f.rotation?.angle.yaw ?? 0) * DEG,
          pitch: (f.rotation?.angle.pitch ?? 0) * DEG,
          happy: f.emotion?.find((e) => e.emotion === 'happy')?.score ?? 0,
          sharpness: laplacianVariance(greyOf(crop)),
          real: f.real,
          live: f.live,
        };
      });
    return { width: fitted.width, height: fitted.height, faces, embedded: embedding };
  }
}
