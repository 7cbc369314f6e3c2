import { describe, expect, it } from 'vitest';
import { qrCodeSvg } from './qr-code.svg.js';

/** The dark modules of the SVG as "x,y" (quiet zone included). */
const darkModules = (svg: string): Set<string> =>
  new Set([...svg.matchAll(/M(\d+) (\d+)h1v1h-1z/g)].map((m) => `${m[1]},${m[2]}`));

const sideOf = (svg: string): number => Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);

describe('qrCodeSvg', () => {
  const tron = 'TEip7dkDcd5oUFdhiZNK3dTP3D6eibwBun';
  const evm = '0x52908400098527886E0F7030069857D2E4169EE7';

  it('draws a version 3 code for a TRON address, with its quiet zone and three finder patterns', () => {
    const svg = qrCodeSvg(tron);
    // Version 3 is 29 modules a side; 4 light modules of margin on each side.
    expect(sideOf(svg)).toBe(37);
    const dark = darkModules(svg);
    const finderCorners = [
      [4, 4],
      [4 + 29 - 7, 4],
      [4, 4 + 29 - 7],
    ] as const;
    for (const [x, y] of finderCorners) {
      // The outer ring is dark, the ring inside it light, the 3x3 centre dark.
      expect(dark.has(`${x},${y}`)).toBe(true);
      expect(dark.has(`${x + 6},${y + 6}`)).toBe(true);
      expect(dark.has(`${x + 1},${y + 1}`)).toBe(false);
      expect(dark.has(`${x + 3},${y + 3}`)).toBe(true);
    }
    // Nothing dark in the quiet zone.
    for (const key of dark) {
      const [x, y] = key.split(',').map(Number) as [number, number];
      expect(Math.min(x, y)).toBeGreaterThanOrEqual(4);
      expect(Math.max(x, y)).toBeLessThan(33);
    }
  });

  it('grows with the text and differs between addresses', () => {
    // Version 3 at level M holds 42 bytes: an EVM address just fits; 60 bytes need version 4.
    expect(sideOf(qrCodeSvg(evm))).toBe(37);
    expect(sideOf(qrCodeSvg('x'.repeat(60)))).toBe(41);
    expect(qrCodeSvg(tron)).toBe(qrCodeSvg(tron));
    expect(qrCodeSvg(tron)).not.toBe(qrCodeSvg(`${tron.slice(0, -1)}A`));
  });

  it('never writes the text into the document', () => {
    expect(qrCodeSvg('<script>x</script>')).not.toContain('script');
  });
});
