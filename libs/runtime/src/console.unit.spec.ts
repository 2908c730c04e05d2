import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TypedApp } from '@stratagate/http';
import { consolePlugin } from './console.ts';

async function appServing(dir: string): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(async (scope) => consolePlugin({ dir })(scope as unknown as TypedApp));
  await app.ready();
  return app;
}

describe('the console route', () => {
  let dir: string;
  let built: FastifyInstance;
  let unbuilt: FastifyInstance;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sg-console-'));
    await mkdir(join(dir, 'dist', 'assets'), { recursive: true });
    await writeFile(join(dir, 'dist', 'index.html'), '<!doctype html><title>console app</title>');
    await writeFile(join(dir, 'dist', 'assets', 'index-abc.js'), 'console.log("app")');
    built = await appServing(join(dir, 'dist'));
    unbuilt = await appServing(join(dir, 'missing'));
  });
  afterAll(async () => {
    await built?.close();
    await unbuilt?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('redirects /console to /console/ and answers the app there', async () => {
    const bare = await built.inject({ url: '/console' });
    expect(bare.statusCode).toBe(302);
    expect(bare.headers.location).toBe('/console/');
    const page = await built.inject({ url: '/console/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('console app');
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(page.headers['cache-control']).toBe('no-cache');
  });

  it('answers index.html for a view path, so a link opens that view', async () => {
    const view = await built.inject({ url: '/console/spaces/acme/events/evt_1?x=1' });
    expect(view.statusCode).toBe(200);
    expect(view.headers['content-type']).toMatch(/text\/html/);
    expect(view.body).toContain('console app');
  });

  it('serves built assets as immutable, and a missing asset is a 404, not the page', async () => {
    const asset = await built.inject({ url: '/console/assets/index-abc.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.body).toBe('console.log("app")');
    expect(asset.headers['cache-control']).toContain('immutable');
    const missing = await built.inject({ url: '/console/assets/gone.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).not.toContain('console app');
  });

  it('without a build, says how to make one (503) on every console path', async () => {
    for (const url of ['/console/', '/console/spaces/acme']) {
      const res = await unbuilt.inject({ url });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body).toContain('npm run console:build');
    }
  });
});
