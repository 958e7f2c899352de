import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A y4m clip (YUV 4:2:0) drawn here, for Chromium's fake camera: a light background with a
 * face-coloured oval and two dark eyes that drift left and right, so every frame differs.
 */
export function writeFakeCameraClip(frames = 30, width = 320, height = 240): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cam-')), 'camera.y4m');
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F15:1 Ip A1:1 C420jpeg\n`, 'latin1');
  const parts: Buffer[] = [header];
  const cw = width / 2;
  const ch = height / 2;
  for (let f = 0; f < frames; f++) {
    const y = Buffer.alloc(width * height, 200);
    const u = Buffer.alloc(cw * ch, 128);
    const v = Buffer.alloc(cw * ch, 128);
    const cx = width / 2 + Math.round(20 * Math.sin((f / frames) * 2 * Math.PI));
    const cy = height / 2;
    for (let j = 0; j < height; j++) {
      for (let i = 0; i < width; i++) {
        const inFace = ((i - cx) / 60) ** 2 + ((j - cy) / 80) ** 2 <= 1;
        const inEye = ((i - (cx - 22)) / 8) ** 2 + ((j - (cy - 20)) / 6) ** 2 <= 1 || ((i - (cx + 22)) / 8) ** 2 + ((j - (cy - 20)) / 6) ** 2 <= 1;
        if (inFace) {
          y[j * width + i] = inEye ? 30 : 160;
          if (i % 2 === 0 && j % 2 === 0) {
            u[(j / 2) * cw + i / 2] = 110;
            v[(j / 2) * cw + i / 2] = 150;
          }
        }
      }
    }
    parts.push(Buffer.from('FRAME\n', 'latin1'), y, u, v);
  }
  fs.writeFileSync(file, Buffer.concat(parts));
  return file;
}
