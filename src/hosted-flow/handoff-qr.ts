import QRCode from 'qrcode';

/** The hosted URL as an SVG QR code, so the same session can be continued on a phone (made here, no third party). */
export async function qrSvg(url: string): Promise<string> {
  return QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
