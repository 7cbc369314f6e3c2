/**
 * 1 vs 2 server processes on one PostgreSQL schema (issue 11: "several server processes on one
 * PostgreSQL stay correct and add throughput"). One server is set up and loaded with create
 * payout at `connections`; a second process is started on the same DATABASE_URL and schema (after
 * the first has migrated and been set up, with the same secrets) and both are loaded at once,
 * half the connections each (two autocannon instances in parallel). Afterwards the payouts table
 * must hold one row per 2xx answer, no reference twice, and no other row but those of requests
 * autocannon cut off unanswered when a round stopped (sent, so the server may commit them).
 */
import { cannonRound, median } from './measure.mjs';
import { startPayrail } from './payrail.mjs';
import { log } from './run-context.mjs';

export const measureScaleOut = async (options, check) => {
  const first = await startPayrail({ store: 'postgres', databaseUrl: options.databaseUrl });
  let second;
  try {
    const round = async (label, targets) => {
      const share = Math.max(1, Math.floor(options.connections / targets.length));
      const results = await Promise.all(
        targets.map((target) =>
          cannonRound({
            url: target.url,
            request: first.requests.quickpayout(),
            connections: share,
            duration: options.duration,
          }),
        ),
      );
      for (const [i, result] of results.entries()) check(`${label} (process ${i + 1})`, result);
      for (const target of targets) {
        if (!target.alive()) throw new Error(`payrail exited during ${label}:\n${target.output()}`);
      }
      const rps = results.reduce((sum, r) => sum + r.rps, 0);
      const ok2xx = results.reduce((sum, r) => sum + r.ok2xx, 0);
      // Requests sent but unanswered when autocannon stopped: the server may still commit them.
      const cutOff = results.reduce((sum, r) => sum + r.sent - r.ok2xx - r.non2xx, 0);
      log(
        `${label}: ${rps.toFixed(1)} req/s in all (${results.map((r) => r.rps.toFixed(1)).join(' + ')}), ` +
          `p99 ${Math.max(...results.map((r) => r.p99))} ms`,
      );
      return {
        rps,
        ok2xx,
        cutOff,
        p99: Math.max(...results.map((r) => r.p99)),
        parts: results.length,
      };
    };
    const one = [];
    for (let i = 1; i <= options.rounds; i += 1) {
      one.push(await round(`1 process, round ${i}`, [first]));
    }
    second = await first.startPeer();
    log(`second process on the same schema: listening on ${second.url}`);
    const two = [];
    for (let i = 1; i <= options.rounds; i += 1) {
      two.push(await round(`2 processes, round ${i}`, [first, second]));
    }
    const answered = [...one, ...two].reduce((sum, r) => sum + r.ok2xx, 0);
    const cutOff = [...one, ...two].reduce((sum, r) => sum + r.cutOff, 0);
    const [{ rows, references, duplicates }] = await first.query(
      `SELECT count(*)::int AS rows, count(DISTINCT reference)::int AS references,
              (SELECT count(*)::int FROM (SELECT 1 FROM payouts WHERE account_id = $1
                GROUP BY reference HAVING count(*) > 1) d) AS duplicates
         FROM payouts WHERE account_id = $1`,
      [first.account],
    );
    // Every 2xx answer is a row; a request cut off unanswered may be one too, nothing else is.
    const correct =
      rows >= answered && rows <= answered + cutOff && references === rows && duplicates === 0;
    log(
      `1 vs 2 processes: ${rows} payouts in the table for ${answered} 2xx answers ` +
        `(+ ${cutOff} requests cut off unanswered at the ends of the rounds), ` +
        `${duplicates} duplicated reference(s): ${correct ? 'correct' : 'NOT correct'}`,
    );
    const oneRps = median(one.map((r) => r.rps));
    const twoRps = median(two.map((r) => r.rps));
    return {
      one: { rps: oneRps, p99: median(one.map((r) => r.p99)), rounds: one },
      two: { rps: twoRps, p99: median(two.map((r) => r.p99)), rounds: two },
      ratio: twoRps / oneRps,
      check: { answered, cutOff, rows, references, duplicates, correct },
    };
  } finally {
    await second?.stop();
    await first.stop();
  }
};
