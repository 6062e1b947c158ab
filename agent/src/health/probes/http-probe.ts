import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { HEALTH_CHECK_DEFAULTS } from '@outpost/shared';
import type { Probe } from './probe.js';
import { errorText, healthy, missingMember, unhealthy } from './probe.js';

/** Only the start of a body is searched for `bodyContains`. */
const MAX_BODY_BYTES = 64 * 1024;

/** HTTP: the status is in the expected range (default 200-399) and the body contains the expected text. */
export const httpProbe: Probe = (spec, signal) => {
  const http = spec.http;
  if (http === undefined) return Promise.resolve(missingMember(spec));
  const method = http.method ?? HEALTH_CHECK_DEFAULTS.httpMethod;
  const range = http.expectedStatus ?? HEALTH_CHECK_DEFAULTS.expectedStatus;
  const url = new URL(http.url);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(url, { method, signal, agent: false, headers: { 'user-agent': 'outpost-droplet-health' } });
    req.once('error', (err) => resolve(unhealthy(`${method} ${http.url}: ${errorText(err)}`)));
    req.once('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status < range.min || status > range.max) {
        res.resume();
        resolve(unhealthy(`${method} ${http.url}: HTTP ${status}, expected ${range.min}-${range.max}`));
        return;
      }
      const wanted = http.bodyContains;
      if (wanted === undefined) {
        res.resume();
        resolve(healthy(`${method} ${http.url}: HTTP ${status}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const judge = (): void => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve(
          body.includes(wanted)
            ? healthy(`${method} ${http.url}: HTTP ${status}, body contains ${JSON.stringify(wanted)}`)
            : unhealthy(`${method} ${http.url}: HTTP ${status}, body does not contain ${JSON.stringify(wanted)}`),
        );
      };
      res.on('data', (chunk: Buffer) => {
        if (size >= MAX_BODY_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_BODY_BYTES) {
          judge();
          res.destroy();
        }
      });
      res.once('end', judge);
      res.once('error', (err) => resolve(unhealthy(`${method} ${http.url}: ${errorText(err)}`)));
    });
    req.end();
  });
};
