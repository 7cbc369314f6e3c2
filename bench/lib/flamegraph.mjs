/**
 * A V8 CPU profile (`node --cpu-prof`'s `.cpuprofile`) as a flame graph in SVG, and its time by
 * where the code comes from. The profile is already a call tree merged by call path; each node's
 * time is its samples' time deltas, a frame's width its time with its callees'. V8's `(idle)` is
 * left out: the graph and the shares are of the time the process was on the CPU.
 */

/** Where a frame's code comes from, by its script URL: the rows of `categoryTotals`. */
const categories = [
  ['payrail core', /packages\/core\//],
  ['payrail engine', /packages\/engine\//],
  ['payrail http', /packages\/http\//],
  ['payrail store-postgres', /packages\/store-postgres\//],
  ['payrail (other packages)', /packages\//],
  ['xstate', /\/xstate@/],
  ['io-ts / fp-ts', /\/(io-ts|fp-ts)@/],
  ['decimal.js', /\/decimal\.js@/],
  ['pg (node-postgres)', /\/(pg|pg-protocol|pg-types|pg-pool)@/],
  ['hono + @hono/node-server', /\/(hono|@hono\+node-server)@/],
  ['other dependencies', /node_modules\//],
  ['node: http, net, streams', /^node:/],
];

const categoryOf = (node) => {
  const { url, functionName } = node.callFrame;
  if (url === '') {
    if (functionName === '(garbage collector)') return 'garbage collector';
    if (functionName === '(program)') return 'V8 and native (program)';
    return 'native and builtins';
  }
  for (const [name, pattern] of categories) if (pattern.test(url)) return name;
  return 'other';
};

const colours = {
  'payrail core': '#6a9fd8',
  'payrail engine': '#4f86c6',
  'payrail http': '#3b6fb0',
  'payrail store-postgres': '#2d5b96',
  'payrail (other packages)': '#8bb3e0',
  xstate: '#a77ec9',
  'io-ts / fp-ts': '#c49bd9',
  'decimal.js': '#d9b3e6',
  'pg (node-postgres)': '#5fae6a',
  'hono + @hono/node-server': '#e59b4a',
  'other dependencies': '#e8c36a',
  'node: http, net, streams': '#b0b0b0',
  'garbage collector': '#d9534f',
  'V8 and native (program)': '#cfcfcf',
  'native and builtins': '#c4c4c4',
  other: '#dddddd',
};

/** The profile's nodes by id, each with its self time (ms) from the samples. */
const indexed = (profile) => {
  const byId = new Map(profile.nodes.map((node) => [node.id, { ...node, selfMs: 0 }]));
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i += 1) {
    const node = byId.get(samples[i]);
    // A sample's delta is the time since the previous one: it belongs to this sample.
    if (node !== undefined) node.selfMs += Math.max(0, (timeDeltas[i] ?? 0) / 1000);
  }
  return byId;
};

const isIdle = (node) => node.callFrame.functionName === '(idle)';

/** The time on the CPU of each category, in ms and in % of all of it, largest first. */
export const categoryTotals = (profile) => {
  const byId = indexed(profile);
  const totals = new Map();
  let busy = 0;
  for (const node of byId.values()) {
    if (isIdle(node)) continue;
    busy += node.selfMs;
    const category = categoryOf(node);
    totals.set(category, (totals.get(category) ?? 0) + node.selfMs);
  }
  return {
    busyMs: busy,
    rows: [...totals]
      .map(([category, ms]) => ({ category, ms, percent: (100 * ms) / busy }))
      .sort((a, b) => b.ms - a.ms),
  };
};

/** The functions with the most self time: `{name, where, ms, percent}`. */
export const topFunctions = (profile, count = 15) => {
  const byId = indexed(profile);
  const totals = new Map();
  let busy = 0;
  for (const node of byId.values()) {
    if (isIdle(node)) continue;
    busy += node.selfMs;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
    totals.set(key, (totals.get(key) ?? 0) + node.selfMs);
  }
  return [...totals]
    .map(([name, ms]) => ({ name, ms, percent: (100 * ms) / busy }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count);
};

const shortUrl = (url) => {
  if (url === '') return '';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0)
    return url
      .slice(modules + 'node_modules/'.length)
      .replace(/^\.pnpm\/[^/]+\/node_modules\//, '');
  const packages = url.indexOf('packages/');
  if (packages >= 0) return url.slice(packages);
  return url.replace(/^file:\/\//, '');
};

const escapeXml = (text) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/**
 * The flame graph: the root at the bottom, each frame as wide as its time with its callees', its
 * colour its category (a legend below), its tooltip its name, place and time. Frames narrower
 * than `minWidth` px are left out.
 */
export const flameGraphSvg = (
  profile,
  { title, subtitle = '', width = 1200, minWidth = 0.6 } = {},
) => {
  const byId = indexed(profile);
  const totalOf = new Map();
  const total = (node) => {
    if (totalOf.has(node.id)) return totalOf.get(node.id);
    let sum = isIdle(node) ? 0 : node.selfMs;
    for (const child of node.children ?? []) sum += total(byId.get(child));
    totalOf.set(node.id, sum);
    return sum;
  };
  const root = byId.get(profile.nodes[0].id);
  const rootMs = total(root);
  const rowHeight = 16;
  const frames = [];
  let depthMax = 0;
  const place = (node, x, depth) => {
    const ms = totalOf.get(node.id) ?? total(node);
    const w = (ms / rootMs) * width;
    if (w < minWidth) return;
    frames.push({ node, x, w, depth, ms });
    depthMax = Math.max(depthMax, depth);
    let childX = x;
    for (const childId of node.children ?? []) {
      const child = byId.get(childId);
      if (isIdle(child)) continue;
      place(child, childX, depth + 1);
      childX += ((totalOf.get(child.id) ?? total(child)) / rootMs) * width;
    }
  };
  place(root, 0, 0);
  const top = 48;
  const graphHeight = (depthMax + 1) * rowHeight;
  const legend = Object.entries(colours);
  const legendTop = top + graphHeight + 16;
  const height = legendTop + Math.ceil(legend.length / 4) * 18 + 8;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="11" role="img">`,
    `<title>${escapeXml(`Flame graph: ${title ?? 'CPU profile'}. ${subtitle}`)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="4" y="18" font-size="14" font-weight="bold">${escapeXml(title ?? 'CPU profile')}</text>`,
    `<text x="4" y="36">${escapeXml(subtitle)} (${(rootMs / 1000).toFixed(1)} s on the CPU; idle left out)</text>`,
  ];
  for (const { node, x, w, depth, ms } of frames) {
    const y = top + graphHeight - (depth + 1) * rowHeight;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = node.id === root.id ? 'all' : functionName || '(anonymous)';
    const where = url === '' ? '' : ` ${shortUrl(url)}:${lineNumber + 1}`;
    const share = ((100 * ms) / rootMs).toFixed(1);
    const fill = node.id === root.id ? '#eeeeee' : colours[categoryOf(node)];
    out.push(
      `<g><title>${escapeXml(`${name}${where}: ${ms.toFixed(0)} ms, ${share} %`)}</title>` +
        `<rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${rowHeight - 1}" fill="${fill}"/>` +
        (w > 40
          ? `<text x="${(x + 3).toFixed(2)}" y="${y + 11}">${escapeXml(name.slice(0, Math.floor((w - 6) / 6.6)))}</text>`
          : '') +
        '</g>',
    );
  }
  legend.forEach(([category, colour], i) => {
    const x = 4 + (i % 4) * (width / 4);
    const y = legendTop + Math.floor(i / 4) * 18;
    out.push(
      `<rect x="${x}" y="${y}" width="12" height="12" fill="${colour}"/>`,
      `<text x="${x + 16}" y="${y + 10}">${escapeXml(category)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
};
