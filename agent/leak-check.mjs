import { createServer } from 'node:http';
import { createServer as tcpServer } from 'node:net';
import { pino } from 'pino';
const { HealthMonitor } = await import('/work/main/agent/dist/health/health-monitor.js');
const { StatusReporter } = await import('/work/main/agent/dist/metrics/status-reporter.js');
const http = createServer((q, s) => s.end('ok')); await new Promise(r => http.listen(0, '127.0.0.1', r));
const tcp = tcpServer(s => s.end()); await new Promise(r => tcp.listen(0, '127.0.0.1', r));
let sent = 0;
const reporter = new StatusReporter({ link: { connected: true, send: () => (sent++, true) }, minIntervalMs: 0 });
const monitor = new HealthMonitor({ reporter, logger: pino({ level: 'warn' }) });
const iv = Number(process.argv[2] ?? 0.05);
const checks = [
  { type: 'HTTP', http: { url: `http://127.0.0.1:${http.address().port}/` } },
  { type: 'HTTP', http: { url: `http://127.0.0.1:${http.address().port}/`, bodyContains: 'ok' } },
  { type: 'TCP', tcp: { host: '127.0.0.1', port: tcp.address().port } },
  { type: 'DEVICE_FILE', deviceFile: { path: '/dev/null' } },
  { type: 'COMMAND', command: { argv: ['true'] } },
  { type: 'ICMP', icmp: { host: '127.0.0.1' } },
  { type: 'TCP', tcp: { host: '127.0.0.1', port: 1 } },
].map((spec, i) => ({ name: `x/${i}`, id: `c${i}`, spec: { ...spec, intervalSeconds: iv, timeoutSeconds: iv } }));
monitor.apply(checks);
for (let t = 0; t <= 60; t += 10) {
  await new Promise(r => setTimeout(r, 10_000));
  global.gc(); global.gc();
  const m = process.memoryUsage();
  console.log(`t=${t + 10}s heapUsed=${(m.heapUsed / 2**20).toFixed(2)} MiB rss=${(m.rss / 2**20).toFixed(1)} external=${(m.external/2**20).toFixed(2)} sent=${sent}`);
}
monitor.stop(); http.close(); tcp.close();
