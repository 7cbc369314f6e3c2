/**
 * Preloaded into payrail's server by `profile.mjs` (`node --require`): counts the statements the
 * server sends through node-postgres (`Client.prototype.query`, which every pool query reaches)
 * and the socket writes they take, and prints both to stderr on SIGUSR2, so the profiler reads
 * them before and after a round. Resolves `pg` as `@payrail/store-postgres` does, the same module
 * the server loads.
 */
const { join } = require('node:path');
const storePostgres = join(__dirname, '..', '..', 'packages', 'store-postgres');
const pg = require(require.resolve('pg', { paths: [storePostgres] }));

let statements = 0;
let writes = 0;
/** The statements by their text's head, kept only with PAYRAIL_COUNT_TEXT=1. */
const texts = process.env.PAYRAIL_COUNT_TEXT === '1' ? new Map() : undefined;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(...args) {
  statements += 1;
  if (texts !== undefined) {
    const text = typeof args[0] === 'string' ? args[0] : String(args[0]?.text);
    const head = text.replace(/\s+/g, ' ').slice(0, 90);
    texts.set(head, (texts.get(head) ?? 0) + 1);
  }
  const stream = this.connection?.stream;
  if (stream !== undefined && stream.__payrailCounted !== true) {
    stream.__payrailCounted = true;
    // Every write that reaches the socket's handle: one syscall each (write or writev).
    const writeGeneric = stream._writeGeneric;
    stream._writeGeneric = function countedWrite(...writeArgs) {
      writes += 1;
      return writeGeneric.apply(this, writeArgs);
    };
  }
  return query.apply(this, args);
};
process.on('SIGUSR2', () => {
  process.stderr.write(`payrail-statements ${statements} ${writes}\n`);
  if (texts !== undefined) {
    for (const [head, count] of [...texts].sort((a, b) => b[1] - a[1])) {
      process.stderr.write(`payrail-statement ${count} ${head}\n`);
    }
  }
});
