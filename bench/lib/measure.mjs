/**
 * Measuring: autocannon rounds summarised the same way for every row, percentiles of latencies
 * the benchmark times itself, and what Linux reports about a process in /proc.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** The fields of /proc/<pid>/stat after the command name (field 2, which may hold spaces). */
const statFields = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
};

/** utime + stime of `pid` in seconds. */
const cpuSecondsOf = (pid) => {
  const fields = statFields(pid);
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
};

/** utime + stime of each of `pids` still alive, in seconds, by pid. */
export const cpuSecondsByPid = (pids) => {
  const seconds = new Map();
  for (const pid of pids) {
    try {
      seconds.set(pid, cpuSecondsOf(pid));
    } catch {
      // Gone since it was listed (a backend that closed, an autovacuum worker that finished).
    }
  }
  return seconds;
};

/**
 * The processes of the embedded PostgreSQL whose cluster is `<directory>/data`: its postmaster
 * (the first line of postmaster.pid) and the processes it forked, its backends and background
 * workers. Those are found by their parent: each makes itself a process group (and session) of
 * its own (InitPostmasterChild), and their command lines no longer name the directory. Empty
 * when no server runs there.
 */
export const postgresPidsIn = (directory) => {
  let postmaster;
  try {
    postmaster = Number(
      readFileSync(join(directory, 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    statFields(postmaster);
  } catch {
    return [];
  }
  const pids = [postmaster];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent's pid is field 4 of the whole line, 2 after the name.
      if (Number(statFields(entry)[1]) === postmaster) pids.push(Number(entry));
    } catch {
      // Gone since /proc was listed.
    }
  }
  return pids;
};

/**
 * VmRSS and PSS of `pids` summed, in MB. VmRSS counts the shared memory (shared_buffers) once
 * per process that touched it, so its sum overstates what the processes hold together; PSS
 * divides each shared page among its users and sums to what they hold.
 */
export const summedMemoryOf = (pids) => {
  let rssMb = 0;
  let pssMb = 0;
  let processes = 0;
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
      const pss = /^Pss:\s+(\d+) kB/m.exec(rollup);
      rssMb += rss === null ? 0 : Number(rss[1]) / 1024;
      pssMb += pss === null ? 0 : Number(pss[1]) / 1024;
      processes += 1;
    } catch {
      // Gone since it was listed.
    }
  }
  return { rssMb, pssMb, processes };
};
