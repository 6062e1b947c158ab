import { maxHeaderSize, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiError } from '@outpost/shared';
import { invalidArgument } from '@outpost/shared';
import { HttpStatusError, requestTimeout } from './http-errors.js';

/**
 * What a request Node's HTTP parser refused before any handler saw it is answered: the one JSON error body
 * (Node's own answer to these has no body at all). A request line and headers over Node's limit (16 KiB; a long
 * filter in a GET's query) is 431, a request head that did not arrive in time 408, anything unparsable 400.
 */
export function malformedRequestAnswer(code: string | undefined, maxHeaderBytes: number): ApiError | undefined {
  switch (code) {
    case 'ECONNRESET':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return new HttpStatusError(
        431,
        'INVALID_ARGUMENT',
        `request line and headers too large: at most ${maxHeaderBytes} bytes (a long filter can go in the body of a :watch)`,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestTimeout('request head timed out');
    default:
      return invalidArgument(`malformed HTTP request${code === undefined ? '' : ` (${code})`}`);
  }
}

/** Answers the server's client errors with malformedRequestAnswer, then closes their connections. */
export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const answer = malformedRequestAnswer(err.code, maxHeaderSize);
    // like Node's own handler: answer only on a socket that has sent nothing yet (no half-written response)
    const bytesWritten = (socket as Duplex & { bytesWritten?: number }).bytesWritten ?? 0;
    if (answer !== undefined && socket.writable && bytesWritten === 0) {
      const body = JSON.stringify(answer.toBody());
      socket.write(
        [
          `HTTP/1.1 ${answer.httpCode} ${REASON_PHRASES[answer.httpCode] ?? 'Bad Request'}`,
          'Content-Type: application/json; charset=utf-8',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Connection: close',
          '',
          body,
        ].join('\r\n'),
      );
    }
    socket.destroy();
  });
}

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};
