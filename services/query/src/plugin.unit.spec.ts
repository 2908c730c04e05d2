import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { TypedApp } from '@stratagate/http';
import type { MessageLog } from '@stratagate/log';
import type { AnyDb } from '@stratagate/store';
import type { ProfileWriter, SpaceWriterService } from '@stratagate/writer';
import { contextOf, type QueryServices } from './context.ts';
import { awaitProjection } from './gate.ts';
import { pinRequestContext } from './plugin.ts';

/** Services whose live read-model schema and projection progress the test moves by hand. */
function switchable(initial: string) {
  let live = initial;
  const applied = new Map<string, number>();
  const services: QueryServices = {
    // Never touched: the test reads only the context's schema and the projection progress.
    db: {} as AnyDb,
    log: {} as MessageLog,
    writer: {} as SpaceWriterService,
    profiles: {} as ProfileWriter,
    now: () => new Date(0),
    remember: { enabled: false, model: null },
    projection: {
      liveSchema: async () => live,
      projectedPosition: async (schema) => applied.get(schema) ?? 0,
      logPosition: async () => 0,
      spacePositionAtOrBelow: async () => 0,
    },
  };
  return {
    services,
    switchTo: (schema: string) => (live = schema),
    apply: (schema: string, position: number) => applied.set(schema, position),
  };
}

const space = { tenantId: 't', spaceId: 's' };

describe('query context per request', () => {
  it('pins each request (body parsing included) to the schema live when it started; a wait for projection follows a switch', async () => {
    const { services, switchTo, apply } = switchable('rm_v1');
    const app = Fastify();
    pinRequestContext(app as unknown as TypedApp, services);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    app.post('/v1/slow', async (request) => {
      const ctx = contextOf(request);
      const before = ctx.schema;
      await gate;
      const after = ctx.schema;
      await awaitProjection(ctx, space, 5, 1_000);
      return { body: request.body, before, after, waited: ctx.schema };
    });
    app.get('/v1/fast', async (request) => ({ schema: contextOf(request).schema }));
    await app.ready();

    const slow = app.inject({ method: 'POST', url: '/v1/slow', payload: { turn: 1 } });
    await new Promise((r) => setTimeout(r, 50));
    switchTo('rm_v1_r2');
    apply('rm_v1_r2', 5);
    const fast = await app.inject({ method: 'GET', url: '/v1/fast' });
    expect(fast.json()).toEqual({ schema: 'rm_v1_r2' });
    release();
    expect((await slow).json()).toEqual({
      body: { turn: 1 },
      before: 'rm_v1',
      after: 'rm_v1',
      waited: 'rm_v1_r2',
    });
    await app.close();
  });

  it('a wait for projection that never arrives is a 503 projection_lagging', async () => {
    const { services } = switchable('rm_v1');
    const ctx = { ...services, schema: 'rm_v1' };
    await expect(awaitProjection(ctx, space, 1, 30)).rejects.toMatchObject({
      status: 503,
      code: 'projection_lagging',
    });
  });
});
