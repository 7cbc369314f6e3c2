/**
 * The results: the rows of the table with their goals (issue 11's, raised by issue 24: reads at
 * 75 % of bare node:http, the embedded default within 300 MB), the markdown table, and the
 * sweep's chart as a hand-written SVG (no dependency).
 */

const fmt = (value, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 })
    : 'n/a';

const ms = (value) => `${fmt(value, value < 10 ? 1 : 0)} ms`;

const throughputCell = (row) =>
  `${fmt(row.rps)} ${row.unit ?? 'req/s'} · p50 ${ms(row.p50)} · p99 ${ms(row.p99)}` +
  (row.non2xx === undefined ? '' : ` · non-2xx ${row.non2xx}`);

const holdsOf = (value) => (value === undefined ? 'n/a' : value ? 'yes' : 'no');

/**
 * The table's rows from the medians. `floors` is `{F1, F2, F3, F4, F5}`; `payrail` is
 * `{postgres, embedded, pglite}`, each `{quickpayout, order, account, idleCpu, memory}`;
 * `drain` and `timers` are `{postgres, embedded}` (background.mjs); `scaleOut` and `ledger` are
 * PostgreSQL's (scale-out.mjs, ledger.mjs). Anything undefined was skipped, except `pglite`,
 * which has rows only when it was measured (`--pglite`).
 */
export const buildRows = ({ floors, payrail, drain, scaleOut, ledger, timers }) => {
  const rows = [];
  const floorRow = (id, label, floor) =>
    rows.push({
      id,
      row: label,
      payrail: '—',
      floor: floor === undefined ? 'skipped' : throughputCell(floor),
      floor_value: floor?.rps,
      ratio: '',
      goal: 'the floor',
      holds: '',
    });
  floorRow('F1', 'F1 bare node:http GET (~200 B JSON)', floors.F1);
  floorRow('F2', 'F2 raw pg BEGIN/INSERT/UPDATE/COMMIT, pool 10', floors.F2);
  floorRow(
    'F3',
    'F3 raw PGlite INSERT+UPDATE tx, data dir on disk, 10 in flight (no fsync: not durable)',
    floors.F3,
  );
  floorRow(
    'F4',
    'F4 raw pg on the embedded PostgreSQL, the F2 tx over its Unix socket, pool 10',
    floors.F4,
  );
  // Not a floor: the framework's ceiling, what a read through Hono reaches with no payrail code.
  const honoRatio = floors.F5 && floors.F1 ? floors.F5.rps / floors.F1.rps : undefined;
  rows.push({
    id: 'F5',
    row: 'F5 Hono on @hono/node-server, one route, F1 body by c.json (the ceiling of a read)',
    payrail: '—',
    floor: floors.F5 === undefined ? 'skipped' : throughputCell(floors.F5),
    floor_value: floors.F5?.rps,
    ratio: honoRatio === undefined ? 'n/a' : `${fmt(100 * honoRatio, 1)} % of F1`,
    ratio_value: honoRatio,
    goal: 'none (what P3 can reach through Hono)',
    holds: '',
  });

  // Each store with its floor: the same database with no payrail code.
  const pglite = ['pglite', 'PGlite (not durable)', floors.F3, 'F3'];
  const stores = [
    ['postgres', 'PostgreSQL', floors.F2, 'F2'],
    ['embedded', 'embedded PostgreSQL', floors.F4, 'F4'],
    ...(payrail.pglite === undefined ? [] : [pglite]),
  ];
  // The outbox and timer rounds run on the stores a deployment chooses between.
  const backgroundStores = stores.filter(([key]) => key !== 'pglite');
  const ratioRow = (id, label, measured, floor, floorName, goalRatio) => {
    const ratio = measured && floor ? measured.rps / floor.rps : undefined;
    rows.push({
      id,
      row: label,
      payrail: measured ? throughputCell(measured) : 'skipped',
      payrail_value: measured?.rps,
      floor: floor ? `${floorName} ${fmt(floor.rps)} ${floor.unit}` : 'skipped',
      floor_value: floor?.rps,
      ratio: ratio === undefined ? 'n/a' : `${fmt(100 * ratio, 1)} %`,
      ratio_value: ratio,
      goal: `>= ${goalRatio * 100} %`,
      holds: holdsOf(ratio === undefined ? undefined : ratio >= goalRatio),
    });
  };
  for (const [key, name, floor, floorName] of stores) {
    ratioRow(
      `P1-${key}`,
      `P1 POST /payment/quickpayout, ${name}`,
      payrail[key]?.quickpayout,
      floor,
      floorName,
      0.5,
    );
  }
  for (const [key, name, floor, floorName] of stores) {
    ratioRow(
      `P2-${key}`,
      `P2 POST /payment/acquiring/orders, ${name}`,
      payrail[key]?.order,
      floor,
      floorName,
      0.5,
    );
  }
  for (const [key, name] of stores) {
    ratioRow(
      `P3-${key}`,
      `P3 GET /payment/account, ${name}`,
      payrail[key]?.account,
      floors.F1,
      'F1',
      0.75,
    );
  }

  const p99 = payrail.postgres?.quickpayout?.p99;
  rows.push({
    id: 'p99-postgres',
    row: 'p99 of create payout, PostgreSQL',
    payrail: p99 === undefined ? 'skipped' : ms(p99),
    payrail_value: p99,
    floor: floors.F2 ? `F2 p99 ${ms(floors.F2.p99)}` : '',
    ratio: '',
    goal: '<= 50 ms',
    holds: holdsOf(p99 === undefined ? undefined : p99 <= 50),
  });

  for (const [key, name] of backgroundStores) {
    const d = drain?.[key];
    const ratio = d?.ratio;
    const creates = d === undefined ? '' : `create ${fmt(d.createRate, 1)} payouts/s`;
    let cell = 'skipped';
    if (d?.note !== undefined) cell = d.note;
    else if (d?.keptPace) {
      cell = `kept pace: ${fmt(d.drainRate, 1)} delivered/s during the creates, backlog ${d.backlog} at their end, zero ${fmt(d.drainSeconds, 1)} s later (capacity not reached)`;
    } else if (d !== undefined) {
      cell =
        `${fmt(d.drainRate, 1)} delivered/s after the creates: backlog ${d.backlog} ` +
        (d.drained
          ? `emptied in ${fmt(d.drainSeconds, 1)} s`
          : `down to ${d.left} after ${fmt(d.drainSeconds, 0)} s`) +
        ` (${fmt(d.deliveredRate, 1)}/s over the whole round)`;
    }
    rows.push({
      id: `drain-${key}`,
      row: `outbox drain vs create rate, ${name}`,
      payrail: cell,
      payrail_value: d?.drainRate,
      floor: creates,
      floor_value: d?.createRate,
      ratio:
        ratio === undefined ? 'n/a' : `${d.keptPace ? '~' : ''}${Number(ratio.toPrecision(2))}x`,
      ratio_value: ratio,
      goal: '>= 2x',
      holds: holdsOf(ratio === undefined || d.keptPace ? undefined : ratio >= 2),
    });
  }

  for (const [key, name] of backgroundStores) {
    const t = timers?.[key];
    const latenessCell = (l) =>
      `p99 ${ms(l.p99)}, max ${ms(l.max)}${l.missing > 0 ? `, ${l.missing} never seen` : ''}`;
    const worst = t === undefined ? undefined : Math.max(t.webhook.p99, t.table?.p99 ?? -Infinity);
    const missing = t === undefined ? 0 : t.webhook.missing + (t.table?.missing ?? 0);
    rows.push({
      id: `timers-${key}`,
      row: `timers fire within 1 s (p99), ${name}`,
      payrail:
        t === undefined
          ? timers === undefined
            ? 'n/a: full run only (waits 60 s)'
            : 'skipped'
          : `${t.orders} orders, expire_seconds ${t.expireSeconds}: webhook received ${latenessCell(t.webhook)}` +
            (t.table === undefined ? '' : `; row expired ${latenessCell(t.table)}`),
      payrail_value: worst,
      floor: '',
      ratio: '',
      goal: '<= 1,000 ms after expire_time',
      holds: holdsOf(t === undefined ? undefined : missing === 0 && worst <= 1000),
    });
  }

  const ledgerRow = (id, label, field, ratioField) => {
    const ratio = ledger?.[ratioField];
    rows.push({
      id,
      row: label,
      payrail:
        ledger === undefined
          ? 'skipped'
          : `${ms(ledger.large[field])} at ${fmt(ledger.large.rows)} rows`,
      payrail_value: ledger?.large[field],
      floor:
        ledger === undefined ? '' : `${ms(ledger.small[field])} at ${fmt(ledger.small.rows)} rows`,
      floor_value: ledger?.small[field],
      ratio: ratio === undefined ? 'n/a' : `${fmt(ratio, 2)}x`,
      ratio_value: ratio,
      goal: '<= 1.5x (1e6 vs 1e4 rows; smoke 1e4 vs 1e3)',
      holds: holdsOf(ratio === undefined ? undefined : ratio <= 1.5),
    });
  };
  ledgerRow('ledger-page', 'ledger page (20, newest first), PostgreSQL', 'pageMs', 'pageRatio');
  ledgerRow('ledger-balances', 'balances, PostgreSQL', 'balancesMs', 'balancesRatio');

  rows.push({
    id: 'scale-out',
    row: 'create payout, 2 server processes vs 1, one PostgreSQL schema',
    payrail:
      scaleOut === undefined
        ? 'skipped'
        : `2 processes ${fmt(scaleOut.two.rps)} req/s (p99 ${ms(scaleOut.two.p99)}); ` +
          `${scaleOut.check.rows} payouts for ${scaleOut.check.answered} 2xx ` +
          `(+ ${scaleOut.check.cutOff} cut off unanswered), ` +
          `${scaleOut.check.duplicates} duplicate references`,
    payrail_value: scaleOut?.two.rps,
    floor: scaleOut === undefined ? '' : `1 process ${fmt(scaleOut.one.rps)} req/s`,
    floor_value: scaleOut?.one.rps,
    ratio: scaleOut === undefined ? 'n/a' : `${fmt(scaleOut.ratio, 2)}x`,
    ratio_value: scaleOut?.ratio,
    goal: 'correct, and > 1x',
    holds: holdsOf(
      scaleOut === undefined ? undefined : scaleOut.check.correct && scaleOut.ratio > 1,
    ),
  });

  for (const [key, name] of stores) {
    const cpu = payrail[key]?.idleCpu;
    rows.push({
      id: `idle-${key}`,
      row: `idle CPU (nothing due), ${name}${key === 'embedded' ? ', payrail + its postgres processes' : ''}`,
      payrail: cpu === undefined ? 'skipped' : `${fmt(cpu, 2)} % of a core`,
      payrail_value: cpu,
      floor: '0',
      ratio: '',
      goal: '<= 1 %',
      holds: holdsOf(cpu === undefined ? undefined : cpu <= 1),
    });
  }

  // What is counted: on the embedded PostgreSQL payrail and the postgres processes it owns (the
  // database is part of what runs payrail); on a PostgreSQL server, payrail alone.
  const memoryRows = [
    ['embedded', 'embedded PostgreSQL, payrail VmHWM + its postgres processes PSS', 300],
    ...(payrail.pglite === undefined ? [] : [['pglite', 'PGlite (not durable), VmHWM', 400]]),
    ['postgres', 'PostgreSQL, VmHWM of payrail (not of the server)', 150],
  ];
  for (const [key, name, limit] of memoryRows) {
    const memory = payrail[key]?.memory;
    const growth = memory?.growth;
    const holds =
      memory === undefined
        ? undefined
        : memory.peakMb <= limit && (growth === undefined || growth <= 0.1);
    const parts =
      memory?.postgresPeakRssMb === undefined
        ? ''
        : ` (payrail ${fmt(memory.payrailPeakMb)} + postgres PSS ${fmt(memory.postgresPeakPssMb)}; ` +
          `postgres VmRSS summed ${fmt(memory.postgresPeakRssMb)})`;
    rows.push({
      id: `rss-${key}`,
      row: `peak RSS under load, ${name}`,
      payrail:
        memory === undefined
          ? 'skipped'
          : `${fmt(memory.peakMb)} MB${parts}; after rounds ${memory.afterRounds.map((v) => fmt(v)).join(' / ')} MB` +
            (growth === undefined
              ? ''
              : `; round 1→3 ${growth >= 0 ? '+' : ''}${fmt(100 * growth, 1)} %`) +
            (memory.idleRssMb === undefined ? '' : `; idle VmRSS ${fmt(memory.idleRssMb)} MB`),
      payrail_value: memory?.peakMb,
      floor: '',
      ratio: '',
      goal: `<= ${limit} MB, no growth > 10 % over 3 rounds`,
      holds: holdsOf(holds),
    });
  }
  return rows;
};

const escapeCell = (text) => String(text).replaceAll('|', '\\|');

export const markdownTable = (rows) => {
  const header = '| row | payrail | floor | ratio | goal | holds |\n|---|---|---|--:|---|---|';
  const lines = rows.map(
    (r) =>
      `| ${[r.row, r.payrail, r.floor, r.ratio, r.goal, r.holds].map(escapeCell).join(' | ')} |`,
  );
  return [header, ...lines].join('\n');
};

/**
 * The sweep as an SVG line chart: throughput (req/s, left axis, solid) and p99 (ms, right axis,
 * dashed) against connections (log scale).
 */
export const sweepSvg = (points, caption) => {
  const width = 640;
  const height = 360;
  const left = 70;
  const right = 70;
  const top = 40;
  const bottom = 60;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const xs = points.map((p) => Math.log2(p.connections));
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  const x = (c) => left + ((Math.log2(c) - xMin) / Math.max(1e-9, xMax - xMin)) * plotW;
  const niceMax = (v) => {
    if (!Number.isFinite(v) || v <= 0) return 1;
    const step = 10 ** Math.floor(Math.log10(v));
    return Math.ceil(v / step) * step;
  };
  const rpsMax = niceMax(Math.max(...points.map((p) => p.rps)));
  const p99Max = niceMax(Math.max(...points.map((p) => p.p99)));
  const yL = (v) => top + plotH - (v / rpsMax) * plotH;
  const yR = (v) => top + plotH - (v / p99Max) * plotH;
  const line = (f) =>
    points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.connections).toFixed(1)},${f(p).toFixed(1)}`);
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>Throughput and p99 latency against connections: ${caption}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${caption}</text>`,
  );
  for (const t of ticks) {
    const y = top + plotH - t * plotH;
    out.push(
      `<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="#e5e5e5"/>`,
      `<text x="${left - 6}" y="${y + 4}" text-anchor="end" fill="#1f5fa8">${fmt(t * rpsMax)}</text>`,
      `<text x="${left + plotW + 6}" y="${y + 4}" fill="#b8432f">${fmt(t * p99Max)}</text>`,
    );
  }
  for (const p of points) {
    const px = x(p.connections);
    out.push(
      `<line x1="${px}" y1="${top + plotH}" x2="${px}" y2="${top + plotH + 5}" stroke="#333"/>`,
      `<text x="${px}" y="${top + plotH + 18}" text-anchor="middle">${p.connections}</text>`,
    );
  }
  out.push(
    `<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`,
    `<path d="${line((p) => yL(p.rps)).join(' ')}" fill="none" stroke="#1f5fa8" stroke-width="2"/>`,
    `<path d="${line((p) => yR(p.p99)).join(' ')}" fill="none" stroke="#b8432f" stroke-width="2" stroke-dasharray="6 4"/>`,
    ...points.map(
      (p) =>
        `<circle cx="${x(p.connections).toFixed(1)}" cy="${yL(p.rps).toFixed(1)}" r="3" fill="#1f5fa8"/>` +
        `<circle cx="${x(p.connections).toFixed(1)}" cy="${yR(p.p99).toFixed(1)}" r="3" fill="#b8432f"/>`,
    ),
    `<text x="${left + plotW / 2}" y="${height - 22}" text-anchor="middle">connections (autocannon)</text>`,
    `<text x="16" y="${top + plotH / 2}" text-anchor="middle" fill="#1f5fa8" transform="rotate(-90 16 ${top + plotH / 2})">throughput, req/s (solid)</text>`,
    `<text x="${width - 14}" y="${top + plotH / 2}" text-anchor="middle" fill="#b8432f" transform="rotate(90 ${width - 14} ${top + plotH / 2})">p99 latency, ms (dashed)</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
};
