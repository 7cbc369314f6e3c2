/**
 * Reading Prometheus's text exposition as a scraper does: a sample is a metric name, its labels
 * and a number; tests ask for one by name and labels.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of the exposition, comments left out. */
const samplesOf = (text: string): Sample[] =>
  text.split('\n').flatMap((line) => {
    const match = sampleLine.exec(line);
    if (match === null) return [];
    const [, name = '', labels = '', value = ''] = match;
    return [
      {
        name,
        labels: Object.fromEntries([...labels.matchAll(labelPair)].map(([, k, v]) => [k, v])),
        value: Number(value),
      },
    ];
  });

/** The value of the one sample `name` whose labels include `labels`; undefined when none is. */
export const sampleValue = (
  text: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined => {
  const found = samplesOf(text).filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match the labels`);
  return found[0]?.value;
};
