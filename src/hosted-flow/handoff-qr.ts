/**
 * The hosted URL as an SVG QR code, so the same session can be continued on a phone (made here, no third party).
 * The encoder is loaded by the first code drawn, not by every server's start.
 */
export async function qrSvg(url: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
