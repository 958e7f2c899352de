/** The camera, or the reason there is none (no API, permission denied, an iframe without allow="camera"). */
export type CameraResult = { ok: true; stream: MediaStream } | { ok: false; reason: 'unsupported' | 'denied' | 'unavailable' };

export async function openCamera(facing: 'user' | 'environment'): Promise<CameraResult> {
  if (!navigator.mediaDevices?.getUserMedia) return { ok: false, reason: 'unsupported' };
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: facing, width: { ideal: 1280 }, height: { ideal: 720 } }, audio: false });
    return { ok: true, stream };
  } catch (err) {
    const name = (err as DOMException).name;
    return { ok: false, reason: name === 'NotAllowedError' || name === 'SecurityError' ? 'denied' : 'unavailable' };
  }
}

export function stopCamera(stream: MediaStream | null): void {
  stream?.getTracks().forEach((t) => t.stop());
}

/** One still from the live video, as a JPEG. */
export function grabFrame(video: HTMLVideoElement, quality = 0.85, maxWidth = 1280): Promise<Blob> {
  const scale = Math.min(1, maxWidth / (video.videoWidth || maxWidth));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round((video.videoWidth || 640) * scale);
  canvas.height = Math.round((video.videoHeight || 480) * scale);
  canvas.getContext('2d')!.drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('no frame'))), 'image/jpeg', quality));
}
