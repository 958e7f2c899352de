import { renderDocument, randomDegradation } from './synthetic-document';
import { randomFields, seededRandom } from './mrz-lines';
import { MrzOcr } from '../../src/checks/engines/mrz-ocr';
import { MrzDocumentReader } from '../../src/checks/engines/mrz-document.reader';
import fs from 'node:fs';
(async () => {
  const ocr = await MrzOcr.start();
  const reader = new MrzDocumentReader(ocr);
  const rand = seededRandom(11);
  const now = new Date('2026-11-23');
  for (const fmt of ['TD3', 'TD2', 'TD1', 'TD3', 'TD1'] as const) {
    const f = randomFields(rand, fmt, now);
    const deg = randomDegradation(rand);
    const doc = await renderDocument(f, deg, rand);
    fs.writeFileSync(`/tmp/h17/d-${fmt}.jpg`, doc.bytes);
    const r = await reader.read({ images: [doc], now });
    console.log(fmt, JSON.stringify(deg), r.verdict, r.reason, JSON.stringify(r.details), r.mrz?.text === doc.mrz.join('\n') ? 'EXACT' : JSON.stringify([r.mrz?.text, doc.mrz]));
  }
  await ocr.close();
})();
