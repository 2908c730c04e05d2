import { connect } from 'node:net';

/** An HTTP/1.1 answer as read off the socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting to the server closing the connection. */
  closedAfterMs: number;
}

/**
 * Sends `request` byte for byte on a fresh connection and reads until the server closes it: the
 * way to send what an HTTP client library refuses to (a space in a path, a NUL in a header, a
 * body that never ends). `request` should ask for `connection: close` unless the server is
 * expected to close it anyway. `status` is 0 when the connection closed without an answer.
 */
export function rawRequest(
  port: number,
  request: string | Buffer,
  options: { timeoutMs?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${options.timeoutMs ?? 30_000} ms`));
    }, options.timeoutMs ?? 30_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may reset a connection it refuses while we still write: read what came.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ...parseAnswer(Buffer.concat(chunks)), closedAfterMs: Date.now() - started });
    });
  });
}

/** A request for `rawRequest`: JSON body, bearer key, `connection: close`. */
export function httpRequest(
  method: string,
  path: string,
  options: {
    key?: string;
    body?: string | Buffer;
    contentType?: string | null;
    headers?: Record<string, string>;
  } = {},
): Buffer {
  const body =
    options.body === undefined
      ? Buffer.alloc(0)
      : Buffer.isBuffer(options.body)
        ? options.body
        : Buffer.from(options.body, 'utf8');
  const lines = [`${method} ${path} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close'];
  if (options.key) lines.push(`authorization: Bearer ${options.key}`);
  if (options.body !== undefined) {
    const type = options.contentType === undefined ? 'application/json' : options.contentType;
    if (type !== null) lines.push(`content-type: ${type}`);
    lines.push(`content-length: ${body.length}`);
  }
  for (const [name, value] of Object.entries(options.headers ?? {}))
    lines.push(`${name}: ${value}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

function parseAnswer(raw: Buffer): Omit<RawAnswer, 'closedAfterMs'> {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: raw.toString('utf8') };
  const [statusLine, ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  else if (headers['content-length'] !== undefined) {
    body = body.subarray(0, Number(headers['content-length']));
  }
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0),
    headers,
    body: body.toString('utf8'),
  };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
