import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import type { Database } from '@stratagate/store';
import { ApiKeyStore } from './api-keys.ts';
import { buildHttpApp } from './app.ts';

describe(`the HTTP app while it shuts down (${describeBackend()})`, () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase('http_app');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('answers a request that arrives while it drains 503 `shutting_down` in the envelope', async () => {
    const apiKeys = new ApiKeyStore(database.db);
    await apiKeys.migrate();
    let started: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const app = await buildHttpApp({
      apiKeys,
      routes: [
        (scope) => {
          scope.get('/slow', { schema: { hide: true } }, async () => {
            started();
            await new Promise((r) => setTimeout(r, 300));
            return { done: true };
          });
        },
      ],
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    // A second request on a connection whose first is still being answered when the server
    // starts to close: the connection stays open for it, and it is refused.
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    const ended = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET /slow HTTP/1.1\r\nhost: x\r\n\r\n');
    await inFlight;
    const closed = app.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    await closed;
    await ended;
    const text = Buffer.concat(received).toString('utf8');
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((a) => a.slice(0, 12))).toEqual(['HTTP/1.1 200', 'HTTP/1.1 503']);
    expect(JSON.parse(answers[1]!.split('\r\n\r\n')[1]!)).toEqual({
      error: {
        code: 'shutting_down',
        message: 'the server is shutting down; send the request again',
      },
    });
  });
});
