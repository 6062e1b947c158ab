/*
 * The source of SyncPostgres's worker (run with `eval`). The worker owns one `pg` connection. Each request is a list
 * of statements run in order; the reply goes back on its own port and the shared flag wakes the caller.
 *
 * A request's statements go to the server as one pipeline (one write, one Sync, one wait: a single round trip
 * however many there are) when they run inside a transaction block: the connection is in one when they start, or
 * the first is BEGIN. PostgreSQL then skips every statement after a failed one up to the Sync, as the caller
 * wants (stops at the first that fails), and the transaction is left failed as it would be one at a time. Outside a
 * block a pipeline would be one implicit transaction (a failure would undo the statements before it, and some
 * commands refuse to run in one), so there each statement is its own pipeline, as before.
 *
 * Statements are prepared by name once per connection (the first 2,000 texts; beyond them one-off filters run
 * unnamed). int8 and numeric come back as JS numbers, JSON and JSONB as their text (the caller parses it when it
 * wants the document).
 */
export const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { dirname, join } = require('node:path');
const pg = require(workerData.driver);
const { prepareValue } = require(join(dirname(workerData.driver), 'utils.js'));
const flag = new Int32Array(workerData.flag);
const port = workerData.port;
const raw = (v) => v;
const types = {
  getTypeParser(oid, format) {
    if (oid === 20 || oid === 1700 || oid === 701 || oid === 700) return (v) => Number(v);
    if (oid === 114 || oid === 3802) return raw;
    return pg.types.getTypeParser(oid, format);
  },
};
const client = new pg.Client({ connectionString: workerData.url, types });
/** statement text -> its prepared name */
const names = new Map();
/** names the server holds (or is sent a Parse for, ahead of its answer) */
const prepared = new Set();
const MAX_PREPARED = 2000;
const connected = client.connect();
let failed;
client.on('error', (err) => { failed = err; });
/** the pipeline whose answers arrive now (pg tells a submittable nothing of ParseComplete) */
let running;
client.connection.on('parseComplete', () => { if (running) running.parsed++; });
function reply(message) {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
function nameOf(sql) {
  let name = names.get(sql);
  if (name === undefined && names.size < MAX_PREPARED) {
    name = 's' + names.size;
    names.set(sql, name);
  }
  return name;
}

/**
 * Statements sent as one pipeline: Parse (once per name), Bind, Describe, Execute each, then one Sync. A pg
 * "submittable": the client hands it the server's messages until the ReadyForQuery after the Sync.
 * done(error, results, at): at is how many statements completed before the failure.
 */
class Pipeline {
  constructor(statements, values, done) {
    this.statements = statements;
    this.values = values;
    this.done = done;
    this.results = [];
    this.result = undefined;
    /** the names this pipeline sent a Parse for (undefined: unnamed), in order, and how many the server parsed */
    this.parses = [];
    this.parsed = 0;
    this.finished = false;
  }
  submit(connection) {
    running = this;
    connection.stream.cork && connection.stream.cork();
    try {
      for (let i = 0; i < this.statements.length; i++) {
        const sql = this.statements[i].sql;
        const name = nameOf(sql);
        if (name === undefined || !prepared.has(name)) {
          connection.parse({ text: sql, name: name || '' });
          if (name !== undefined) prepared.add(name);
          this.parses.push(name);
        }
        connection.bind({ portal: '', statement: name || '', values: this.values[i] });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      }
      connection.sync();
    } finally {
      connection.stream.uncork && connection.stream.uncork();
    }
    return null;
  }
  handleRowDescription(msg) {
    this.result = new pg.Result('array', types);
    this.result.addFields(msg.fields);
  }
  handleDataRow(msg) {
    this.result.rows.push(this.result.parseRow(msg.fields));
  }
  handleCommandComplete(msg) {
    const result = this.result || new pg.Result('array', types);
    result.addCommandComplete(msg);
    this.results.push({ rows: result.rows, rowCount: result.rowCount || 0 });
    this.result = undefined;
  }
  handleEmptyQuery() {
    this.results.push({ rows: [], rowCount: 0 });
  }
  handlePortalSuspended() {}
  handleCopyInResponse(connection) {
    connection.sendCopyFail('COPY is not supported here');
  }
  handleCopyData() {}
  handleError(err, connection) {
    // the Parses not answered by ParseComplete (a Parse that failed, those skipped after a failure) prepared nothing
    const at = this.results.length;
    for (const name of this.parses.slice(this.parsed)) if (name !== undefined) prepared.delete(name);
    // a statement's error: answered once the server is ready again, so the next request sees where the
    // transaction stands; a lost connection (no ReadyForQuery to come): at once
    if (err && err.severity === 'ERROR' && connection) connection.once('readyForQuery', () => this.finish(err, at));
    else this.finish(err, at);
  }
  handleReadyForQuery() {
    this.finish(undefined, this.results.length);
  }
  finish(err, at) {
    if (this.finished) return;
    this.finished = true;
    this.done(err, this.results, at);
  }
}

function pipeline(statements, values) {
  return new Promise((resolve) => {
    client.query(new Pipeline(statements, values, (error, results, at) => resolve({ error, results, at })));
  });
}

function insideBlock(statements) {
  return client.getTransactionStatus() !== 'I' || /^\\s*BEGIN\\b/i.test(statements[0].sql);
}

// one request at a time, in the order they came: a request posted before the last one's reply ran after it
let previous = Promise.resolve();
port.on('message', (request) => {
  previous = previous.then(() => handle(request));
});
async function handle(request) {
  if (request.close) {
    try { await client.end(); } catch {}
    reply({ id: request.id, results: [] });
    port.close();
    return;
  }
  const statements = request.statements;
  let results = [];
  try {
    await connected;
    if (failed) throw failed;
    const values = [];
    for (const statement of statements) {
      try {
        values.push((statement.params || []).map(prepareValue));
      } catch (err) {
        break; // this one fails before it is sent: those before it run, one at a time
      }
    }
    if (values.length === statements.length && statements.length > 1 && insideBlock(statements)) {
      const outcome = await pipeline(statements, values);
      results = outcome.results;
      if (outcome.error) throw outcome.error;
    } else {
      for (let i = 0; i < statements.length; i++) {
        if (i === values.length) values.push((statements[i].params || []).map(prepareValue));
        const outcome = await pipeline([statements[i]], [values[i]]);
        if (outcome.error) throw outcome.error;
        results.push(outcome.results[0]);
      }
    }
    reply({ id: request.id, results });
  } catch (err) {
    reply({ id: request.id, error: { message: String(err && err.message ? err.message : err), code: err && err.code, at: results.length } });
  }
}
`;
