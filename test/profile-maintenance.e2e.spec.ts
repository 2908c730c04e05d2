import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOfflineProvider,
  ModelError,
  type ModelPort,
  type ProfileCompressionInput,
  type ProfileCompressionResult,
} from '@stratagate/model';
import { describeBackend } from '@stratagate/store/testing';
import { startTestNode, type TestNode } from './harness.ts';
import { eventually } from './support/processes.ts';

/*
 * MM-PRO-6 as the consolidator runs it: a profile that reaches 80 % of a long field is due at
 * once; the model's answer is recorded and applied only onto the revision it read, and only if
 * it adds nothing; failures back off. The model here is the offline provider, or a scripted one.
 */

/** 854 characters: over 80 % of standingInstructions (1,000), so due at once. */
const REPEATED = Array.from({ length: 45 }, () => 'Cite your sources.').join(' ');

describe(`profile maintenance (${describeBackend()})`, () => {
  let t: TestNode;
  let script: ((input: ProfileCompressionInput) => Promise<ProfileCompressionResult>) | null = null;
  const offline = createOfflineProvider();
  const model: ModelPort = {
    ...offline,
    compressProfile: (input, options) =>
      script ? script(input) : offline.compressProfile!(input, options),
  };
  const set = (profileId: string, field: string, value: string) =>
    t.request('PATCH', `/v1/profiles/${profileId}`, { field, value, expectedRevision: null });
  const profile = async (id: string) => (await t.request('GET', `/v1/profiles/${id}`)).body;
  const lastAttempt = (id: string, outcome: string) =>
    eventually(`a ${outcome} maintenance of ${id}`, async () => {
      const p = await profile(id);
      return p.maintenance.last?.outcome === outcome && p;
    });

  beforeAll(async () => {
    t = await startTestNode('profile_maintenance', { model });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('the offline provider drops repeats only, recorded as a maintenance change', async () => {
    await t.request('PUT', '/v1/profiles/repeats');
    expect((await set('repeats', 'standingInstructions', REPEATED)).status).toBe(200);
    await set('repeats', 'homeCity', 'Harbin');
    const p = await lastAttempt('repeats', 'compressed');
    expect(p.fields.standingInstructions.value).toBe('Cite your sources.');
    expect(p.fields.homeCity.value).toBe('Harbin');
    expect(p.maintenance).toMatchObject({ failures: 0, nextAttemptAt: null });
    // Due again 24 h after this success, not before.
    expect(Date.parse(p.maintenance.dueAt) - Date.parse(p.maintenance.lastSuccessAt)).toBe(
      24 * 3_600_000,
    );
    // The pass may run before or after the homeCity edit: find its change, not the newest.
    const changes = (await t.request('GET', '/v1/profiles/repeats/history')).body.changes as {
      source: string;
    }[];
    expect(changes.filter((c) => c.source === 'maintenance')).toHaveLength(1);
    const change = changes.find((c) => c.source === 'maintenance');
    expect(change).toMatchObject({
      field: 'standingInstructions',
      source: 'maintenance',
      oldValue: REPEATED,
      newValue: 'Cite your sources.',
    });
  });

  it('a model failure is recorded and backs off 5 minutes', async () => {
    script = async () => {
      throw new ModelError('model unavailable', 'http_503', true);
    };
    await t.request('PUT', '/v1/profiles/failing');
    await set('failing', 'persistentNotes', 'n'.repeat(1000));
    const p = await lastAttempt('failing', 'failed');
    expect(p.maintenance.failures).toBe(1);
    expect(p.maintenance.last.error).toMatchObject({ code: 'http_503' });
    expect(Date.parse(p.maintenance.nextAttemptAt) - Date.parse(p.maintenance.last.at)).toBe(
      5 * 60_000,
    );
    expect(p.fields.persistentNotes.value).toBe('n'.repeat(1000));
  });

  it('an answer that adds a fact is refused; one read before a change is stale', async () => {
    script = async (input) => ({
      output: { fields: [{ field: input.fields[0]!.field, value: 'Cite sources from Berlin.' }] },
      provider: 'scripted',
      promptVersion: 'test@1',
    });
    await t.request('PUT', '/v1/profiles/inventive');
    await set('inventive', 'standingInstructions', REPEATED);
    const refused = await lastAttempt('inventive', 'failed');
    expect(refused.maintenance.last.error.code).toBe('invalid_output');
    expect(refused.fields.standingInstructions.value).toBe(REPEATED);

    let edited = false;
    // The retry waits until the stale attempt has been seen, or it would replace it at once.
    let release = () => {};
    const staleSeen = new Promise<void>((resolve) => (release = resolve));
    script = async (input) => {
      if (!edited) {
        // The user edits the profile while the model works.
        edited = true;
        await set('racing', 'homeCity', 'Harbin');
      } else {
        await staleSeen;
      }
      return offline.compressProfile!(input);
    };
    await t.request('PUT', '/v1/profiles/racing');
    await set('racing', 'standingInstructions', REPEATED);
    const stale = await lastAttempt('racing', 'stale');
    expect(stale.fields.standingInstructions.value).toBe(REPEATED);
    release();
    // The next pass reads the new revision and applies.
    const applied = await lastAttempt('racing', 'compressed');
    expect(applied.fields).toMatchObject({
      standingInstructions: { value: 'Cite your sources.' },
      homeCity: { value: 'Harbin' },
    });
  });
});
