/**
 * The statement CSV against CSV injection (issue 35, L4): whatever a reference holds, no
 * spreadsheet cell it can become starts as a formula, whichever list separator the spreadsheet
 * splits on (the comma, or `;` and tab in other locales, quotes honoured or not), and the
 * comma-separated file still reads back to the reference with only `'`s added.
 */
import type { LedgerEntryView } from '@payrail/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordCsvLine } from './statement.views.js';

const record = (reference: string): LedgerEntryView => ({
  transaction_id: 'tx_1',
  record_type: 'payout',
  currency: 'USD',
  bucket: 'available',
  amount: '-10.00',
  balance_after: '90.00',
  business_type: 'payout',
  business_id: 'po_1',
  reference,
  created_at: 1_700_000_000,
});

/**
 * Cells as a spreadsheet splitting on `separator` makes them, honouring quotes or not (a line
 * break outside quotes starts a row, and so a cell, too).
 */
const cellsOf = (line: string, separator: string, quotes: boolean): string[] => {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i] as string;
    if (quotes && c === '"' && cell === '' && !quoted) quoted = true;
    else if (quotes && quoted && c === '"' && line[i + 1] === '"') {
      cell += '"';
      i += 1;
    } else if (quotes && quoted && c === '"') quoted = false;
    else if ((c === separator || c === '\r' || c === '\n') && !quoted) {
      cells.push(cell);
      cell = '';
    } else cell += c;
  }
  cells.push(cell);
  return cells;
};

/** What a spreadsheet runs: a cell whose first character past spaces starts a formula. */
const runsAsFormula = (cell: string): boolean => {
  const text = cell.replace(/^ +/, '');
  if (/^-?\d+(\.\d+)?$/.test(text)) return false; // a signed amount is a number
  return /^[=+\-@]/.test(text);
};

const hostile = fc.string({
  unit: fc.constantFrom(
    'a',
    '1',
    ' ',
    '=',
    '+',
    '-',
    '@',
    ',',
    ';',
    '\t',
    '"',
    '|',
    '\r',
    '\n',
    "'",
  ),
  maxLength: 24,
});

describe('the statement CSV', () => {
  it('writes `x;=cmd|...` so that no separator starts a formula cell (L4)', () => {
    const line = recordCsvLine(record("x;=cmd|' /C calc'!A0"));
    expect(line).toContain(`"x;'=cmd|' /C calc'!A0"`);
    for (const separator of [',', ';', '\t']) {
      for (const quotes of [true, false]) {
        expect(cellsOf(line.trimEnd(), separator, quotes).filter(runsAsFormula)).toEqual([]);
      }
    }
  });

  it('leaves no cell that runs as a formula, for any reference and any separator', () => {
    fc.assert(
      fc.property(hostile, (reference) => {
        const line = recordCsvLine(record(reference)).slice(0, -2);
        for (const separator of [',', ';', '\t']) {
          for (const quotes of [true, false]) {
            const cells = cellsOf(line, separator, quotes).filter(runsAsFormula);
            expect(cells, `split on ${JSON.stringify(separator)}`).toEqual([]);
          }
        }
      }),
    );
  });

  it('reads back, split on commas with quotes honoured, to the reference with only quotes added', () => {
    fc.assert(
      fc.property(hostile, (reference) => {
        const line = recordCsvLine(record(reference)).slice(0, -2);
        const cells = cellsOf(line, ',', true);
        expect(cells).toHaveLength(12);
        expect((cells[11] ?? '').replace(/'/g, '')).toBe(reference.replace(/'/g, ''));
      }),
    );
  });
});
