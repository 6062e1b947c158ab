import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { createServer as createHttpServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createSecureContext } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { TlsFiles } from './config.js';
import type { Logger } from './logger.js';
import type { ConnectionSource } from './tls-wave-heap.js';

/** The server's listening socket: plain HTTP, or HTTPS (and so WSS) with a certificate that can be swapped live. */
export interface Listener {
  server: Server;
  scheme: 'http' | 'https';
  /** re-reads the certificate files (SIGHUP); absent without TLS. False when they are unusable (the old one stays). */
  reloadCertificate?: () => boolean;
  /** the new connections of the HTTPS server, each a TLS socket (tls-wave-heap.ts); absent without TLS */
  tlsConnections?: ConnectionSource;
  /** stops watching the certificate files */
  close(): void;
}

export interface ListenerOptions {
  /** how often the certificate files are checked for a change; default 2 s */
  pollIntervalMs?: number;
  /** a change is read this long after it was seen, so a renewal that writes both files is read once; default 500 ms */
  settleMs?: number;
}

interface Certificate {
  cert: Buffer;
  key: Buffer;
}

export function createListener(
  tls: TlsFiles | undefined,
  serverOptions: ServerOptions,
  app: RequestListener,
  logger: Logger,
  options: ListenerOptions = {},
): Listener {
  if (tls === undefined) return { server: createHttpServer(serverOptions, app), scheme: 'http', close: () => {} };
  const certificate = readCertificate(tls);
  const server = createHttpsServer({ ...serverOptions, ...certificate }, app);
  logger.info(describe(tls, certificate), 'serving HTTPS and WSS');
  const watcher = new CertificateWatcher(server, tls, logger, options);
  return {
    server,
    scheme: 'https',
    tlsConnections: server,
    reloadCertificate: () => watcher.reload('SIGHUP'),
    close: () => watcher.close(),
  };
}

/** Reads the certificate (chain) and its key; throws an Error naming the file when they are unusable or do not match. */
export function readCertificate(files: TlsFiles): Certificate {
  const cert = readPem(files.certFile, 'certificate');
  const key = readPem(files.keyFile, 'private key');
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new Error(
      `the TLS certificate ${files.certFile} and key ${files.keyFile} are unusable together: ${messageOf(err)}`,
    );
  }
  return { cert, key };
}

function readPem(file: string, what: string): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (err) {
    throw new Error(`cannot read the TLS ${what} ${file}: ${messageOf(err)}`);
  }
  if (!pem.includes('-----BEGIN ')) throw new Error(`the TLS ${what} ${file} is not PEM`);
  return pem;
}

/**
 * Swaps the certificate of a running HTTPS server when its files change or on request. setSecureContext applies
 * to new handshakes only: connections already open (agent links, watch streams) keep going.
 */
class CertificateWatcher {
  private settleTimer: NodeJS.Timeout | undefined;
  private readonly files: readonly string[];

  constructor(
    private readonly server: HttpsServer,
    private readonly tls: TlsFiles,
    private readonly logger: Logger,
    private readonly options: ListenerOptions,
  ) {
    // polling stats the paths, so it follows a renewal that replaces the file or re-points a symlink (certbot)
    this.files = [...new Set([tls.certFile, tls.keyFile])];
    for (const file of this.files) {
      watchFile(file, { interval: options.pollIntervalMs ?? 2_000, persistent: false }, this.changed);
    }
  }

  reload(reason: string): boolean {
    let certificate: Certificate;
    try {
      certificate = readCertificate(this.tls);
    } catch (err) {
      this.logger.error({ reason, err: messageOf(err) }, 'cannot reload the TLS certificate; keeping the current one');
      return false;
    }
    this.server.setSecureContext(certificate);
    this.logger.info({ reason, ...describe(this.tls, certificate) }, 'reloaded the TLS certificate');
    return true;
  }

  close(): void {
    clearTimeout(this.settleTimer);
    for (const file of this.files) unwatchFile(file, this.changed);
  }

  private readonly changed = (current: Stats, previous: Stats): void => {
    if (current.mtimeMs === previous.mtimeMs && current.ino === previous.ino && current.size === previous.size) return;
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => this.reload('the certificate files changed'), this.options.settleMs ?? 500);
    this.settleTimer.unref();
  };
}

function describe(tls: TlsFiles, certificate: Certificate): Record<string, string> {
  try {
    const leaf = new X509Certificate(certificate.cert);
    return { certFile: tls.certFile, subject: leaf.subject, validTo: leaf.validTo };
  } catch {
    return { certFile: tls.certFile };
  }
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
