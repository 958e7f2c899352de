import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { randomBase62 } from '../src/ids';

/** How long a connection refused at the HTTP parser may keep sending before it is cut. */
const DRAIN_MS = 10_000;

/**
 * Requests Node's HTTP parser refuses before express sees them (headers or URL past Node's 16 KiB
 * limit, a malformed request line) get the error body of every other client mistake, and their
 * connection is closed gracefully. Node's default answer writes a bare status line and destroys the
 * socket at once: while the client is still sending its long URL, the unread bytes make the kernel
 * reset the connection, and the client sees "other side closed" instead of the 431.
 */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    // The parser reports every later chunk of a refused request again; answer the first only.
    if (err.code === 'ECONNRESET' || !socket.writable) return;
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    const requestId = `req_${randomBase62(20)}`;
    const message = tooLarge ? 'The request line and headers are at most 16 KiB; send long GraphQL operations with POST' : 'The request is not valid HTTP';
    const body = JSON.stringify({ error: { code: 'invalid_request', message, request_id: requestId } });
    socket.end(
      `HTTP/1.1 ${status}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nrequest-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
    );
    // Keep reading (and discarding) what the client still sends, so closing does not reset the connection.
    socket.resume();
    setTimeout(() => socket.destroy(), DRAIN_MS).unref();
  });
}

/**
 * Did this error come from the client going away (its connection reset or closed before the body
 * ended), rather than from us? Node reports it as ECONNRESET or "aborted"; body-parser as `request.aborted`.
 */
export function isClientAbort(err: unknown, req: http.IncomingMessage): boolean {
  const e = err as { code?: string; type?: string; message?: string } | null;
  if (e?.code === 'ECONNRESET' || e?.code === 'ECONNABORTED' || e?.code === 'ERR_STREAM_PREMATURE_CLOSE' || e?.type === 'request.aborted' || e?.message === 'aborted') return true;
  return req.destroyed && !req.complete;
}
