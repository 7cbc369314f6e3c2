/**
 * A QR code of a deposit address as an SVG document, made on the server with the pure
 * `qrcode-generator` encoder (docs/adr/0016-checkout-page.md): the page loads it from its own
 * origin, so the browser runs no QR library and asks no third party.
 */
import qrcode from 'qrcode-generator';

/** Four modules of light margin around the code, as the QR specification asks. */
const quietZone = 4;

/**
 * One path of unit squares, one per dark module. The encoded text never appears in the SVG, so
 * nothing in it needs escaping.
 */
export const qrCodeSvg = (text: string): string => {
  // M: about 15 % of the code can be damaged (a smudged screen, a glare) and it still scans.
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const count = qr.getModuleCount();
  const size = count + 2 * quietZone;
  const squares: string[] = [];
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; col += 1) {
      if (qr.isDark(row, col)) squares.push(`M${col + quietZone} ${row + quietZone}h1v1h-1z`);
    }
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="${size * 6}" height="${size * 6}" shape-rendering="crispEdges">`,
    `<rect width="${size}" height="${size}" fill="#fff"/>`,
    `<path fill="#000" d="${squares.join('')}"/>`,
    '</svg>',
  ].join('');
};
