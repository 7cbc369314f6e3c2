/**
 * Measuring: autocannon rounds summarised the same way for every row, percentiles of latencies
 * the benchmark times itself, and what Linux reports about a process in /proc.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export const median = (values) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The p-th percentile (0-100) of unsorted millisecond samples, nearest rank. */
export const percentile = (samples, p) => {
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
};

const maxErrorSamples = 3;

/**
 * One autocannon round against `url`: `request` is `{method, path, headers, body?}` or, for a
 * body that differs per request, `{..., makeBody(n)}`. Answers req/s (every completed request
 * over the run time), p50/p99 ms, the non-2xx and error counts and a few error bodies.
 */
export const cannonRound = async ({ url, request, connections, duration }) => {
  const errorSamples = [];
  let counter = 0;
  const spec = {
    method: request.method,
    path: request.path,
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(request.makeBody === undefined
      ? {}
      : {
          setupRequest: (req) => {
            counter += 1;
            return { ...req, body: request.makeBody(counter) };
          },
        }),
    onResponse: (status, body) => {
      if ((status < 200 || status > 299) && errorSamples.length < maxErrorSamples) {
        errorSamples.push(`${status} ${String(body).slice(0, 300)}`);
      }
    },
  };
  const result = await autocannon({
    url,
    connections,
    duration,
    timeout: 30,
    requests: [spec],
  });
  const seconds = result.duration > 0 ? result.duration : duration;
  return {
    rps: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    errorSamples,
    seconds,
    /** Requests given a body (`makeBody`), answered or not: the ones cut off are still sent. */
    sent: counter,
  };
};

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** VmHWM and VmRSS of `pid` in MB (kB / 1024), or undefined once it is gone. */
export const memoryOf = (pid) => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => {
      const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
      return match === null ? Number.NaN : Number(match[1]) / 1024;
    };
    return { peakMb: field('VmHWM'), rssMb: field('VmRSS') };
  } catch {
    return undefined;
  }
};

/** utime + stime of `pid` in seconds. */
export const cpuSecondsOf = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; fields are counted after its closing paren.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
};
