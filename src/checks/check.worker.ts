/**
 * A check worker thread: loads the offline models once, then runs engine calls sent by the
 * CheckWorkerPool one at a time (inference never runs on the API's event loop).
 */
import { parentPort } from 'node:worker_threads';
import { reviveBuffers, type CheckTaskMessage, type CheckTaskReply } from './check-task';
import { startOfflineEngines, type OfflineEngines } from './engines/offline-engines';

async function run(engines: OfflineEngines, msg: CheckTaskMessage): Promise<unknown> {
  const input = reviveBuffers(msg.input) as never;
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
}

async function main(): Promise<void> {
  const port = parentPort!;
  const engines = await startOfflineEngines();
  port.on('message', async (msg: CheckTaskMessage | 'close') => {
    if (msg === 'close') {
      await engines.close();
      port.close();
      return;
    }
    let reply: CheckTaskReply;
    try {
      reply = { id: msg.id, ok: true, output: await run(engines, msg) };
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
