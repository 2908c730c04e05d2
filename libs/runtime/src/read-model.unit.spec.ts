import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { TypedApp } from '@stratagate/http';
import type { LiveSchema } from '@stratagate/projector';
import { requestReadModel } from './read-model.ts';

/** A live schema the test switches by hand. */
function switchable(initial: string) {
  let value = initial;
  const live: LiveSchema = {
    cached: () => value,
    get: async () => value,
    refresh: async () => value,
  };
  return { live, set: (v: string) => (value = v) };
}

describe('read-model schema per request', () => {
  it('pins each request (body parsing included) to the version live when it started; waiting follows a switch', async () => {
    const { live, set } = switchable('rm_v1');
    const pinned = requestReadModel(live);
    const app = Fastify();
    pinned.hook(app as unknown as TypedApp);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    app.post('/v1/slow', async (request) => {
      const before = pinned.schema();
      await gate;
      const after = pinned.schema();
      const followed = await pinned.follow();
      return { body: request.body, before, after, followed, now: pinned.schema() };
    });
    app.get('/v1/fast', async () => ({ schema: pinned.schema() }));
    await app.ready();

    const slow = app.inject({ method: 'POST', url: '/v1/slow', payload: { turn: 1 } });
    await new Promise((r) => setTimeout(r, 50));
    set('rm_v1_r2');
    const fast = await app.inject({ method: 'GET', url: '/v1/fast' });
    expect(fast.json()).toEqual({ schema: 'rm_v1_r2' });
    release();
    expect((await slow).json()).toEqual({
      body: { turn: 1 },
      before: 'rm_v1',
      after: 'rm_v1',
      followed: 'rm_v1_r2',
      now: 'rm_v1_r2',
    });
    // Outside a request: the last known live schema.
    expect(pinned.schema()).toBe('rm_v1_r2');
    await app.close();
  });
});
