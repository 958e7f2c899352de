/**
 * A check worker thread: loads the offline models once, then runs engine calls sent by the
 * CheckWorkerPool one at a time (inference never runs on the API's event loop).
 */
import { parentPort } from 'node:worker_threads';
import { reviveBuffers, type CheckTaskMessage, type CheckTaskReply } from './check-task';
import { MemoFaceAnalyzer } from './engines/face-analysis-memo';
import { offlineEngines, startOfflineModels } from './engines/offline-engines';

type Models = Awaited<ReturnType<typeof startOfflineModels>>;

/** One engine call, on engines whose face analyser knows the faces the session's earlier checks analysed. */
async function run(models: Models, msg: CheckTaskMessage): Promise<{ output: unknown; faces: MemoFaceAnalyzer['computed'] }> {
  const input = reviveBuffers(msg.input) as never;
  const faces = new MemoFaceAnalyzer(models.faces, msg.faces);
  const engines = offlineEngines(models.ocr, faces);
  const output = await (async () => {
    switch (msg.kind) {
      case 'document':
        return engines.documentReader.read(input);
      case 'face':
        return engines.faceMatcher.match(input);
      case 'liveness':
        return engines.livenessVerifier.verify(input);
      case 'antiSpoof':
        return engines.presentationAttackDetector.detect(input);
    }
  })();
  return { output, faces: faces.computed };
}

async function main(): Promise<void> {
  const port = parentPort!;
  const models = await startOfflineModels();
  port.on('message', async (msg: CheckTaskMessage | 'close') => {
    if (msg === 'close') {
      await models.close();
      port.close();
      return;
    }
    let reply: CheckTaskReply;
    try {
      reply = { id: msg.id, ok: true, ...(await run(models, msg)) };
    } catch (e) {
      reply = { id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(reply);
  });
  port.postMessage('ready');
}

void main().catch((e) => {
  parentPort?.postMessage({ fatal: e instanceof Error ? e.message : String(e) });
  process.exit(1);
});
