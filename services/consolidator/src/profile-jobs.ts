import { sql, type Kysely } from 'kysely';
import {
  decideProfileMaintenance,
  decideProposalAnswer,
  LONG_PROFILE_FIELDS,
  maintenanceDue,
  PROFILE_FIELD_LIMITS,
  ProfileFieldName,
  type ProfileState,
} from '@stratagate/domain';
import type { MessageLog } from '@stratagate/log';
import type { ModelPort } from '@stratagate/model';
import type { AnyDb, ReadModelTables } from '@stratagate/store';
import { ProfileWriter } from '@stratagate/writer';
import { randomUUID } from 'node:crypto';

const newId = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;

/**
 * Pending proposals whose thread has a user message after the turn they were made in, with the
 * first such message: the user's answer (MM-PRO-4).
 */
export async function dueConsentAnswers(db: AnyDb, schema: string, limit: number) {
  const rm = (db as Kysely<ReadModelTables>).withSchema(schema);
  const { rows } = await sql<{
    tenant_id: string;
    profile_id: string;
    proposal_id: string;
    message_id: string;
    content: string;
  }>`
    select p.tenant_id, p.profile_id, p.proposal_id, m.message_id, m.content
    from ${sql.table(`${schema}.profile_proposals`)} p
    join lateral (
      select m.message_id, m.content
      from ${sql.table(`${schema}.messages`)} m
      where m.tenant_id = p.tenant_id and m.space_id = p.origin_space_id
        and m.thread_id = p.origin_thread_id and m.role = 'user'
        and m.thread_turn > p.after_thread_turn
      order by m.thread_turn, m.seq
      limit 1
    ) m on true
    where p.status = 'pending'
    order by p.position
    limit ${limit}`.execute(rm);
  return rows;
}

/** Profiles whose maintenance is due by the read model's clock (MM-PRO-6). */
export async function dueProfileMaintenance(db: AnyDb, schema: string, now: Date, limit: number) {
  const rm = (db as Kysely<ReadModelTables>).withSchema(schema);
  return rm
    .selectFrom('profiles')
    .select(['tenant_id', 'profile_id'])
    .where('maintenance_due_at', '<=', now.toISOString())
    .orderBy('maintenance_due_at')
    .limit(limit)
    .execute();
}

export interface ProfileJobsOptions {
  db: AnyDb;
  log: MessageLog;
  model: ModelPort;
  now: () => Date;
  timeoutMs: number;
  batchSize: number;
}

/**
 * The profile's background work (ADR 0050), run by the consolidator after the block jobs:
 * deciding proposals once the user's next message is projected, and compression when due. Both
 * decide on the profile's folded state at commit (ProfileWriter) and carry an idempotency key,
 * so two consolidators, or a pass that runs again before projection caught up, record it once.
 */
export function createProfileJobs(options: ProfileJobsOptions) {
  const { db, log, model, now } = options;
  const profiles = new ProfileWriter(log);

  async function answer(row: Awaited<ReturnType<typeof dueConsentAnswers>>[number]) {
    const at = now().toISOString();
    await profiles.write(
      row.tenant_id,
      row.profile_id,
      { occurredAt: at, idempotencyKey: `consent:${row.proposal_id}` },
      (state) => ({
        records: decideProposalAnswer(state, {
          proposalId: row.proposal_id,
          answer: { messageId: row.message_id, content: row.content },
          changeId: newId('pchg'),
          at,
        }),
        result: null,
      }),
    );
  }

  /** MM-GEN-9: read the state, call the model outside any write, decide again at commit. */
  async function maintain(tenantId: string, profileId: string, signal: AbortSignal) {
    const read = await profiles.state(tenantId, profileId);
    const startedAt = now();
    if (!model.compressProfile || !maintenanceDue(read, startedAt.getTime())) return false;
    const basedOnRevision = read.revision;
    const key = attemptKey(read);
    const fields = LONG_PROFILE_FIELDS.filter((f) => read.values[f] !== '').map((f) => ({
      field: f,
      value: read.values[f],
      limit: PROFILE_FIELD_LIMITS[f],
    }));
    let result: Parameters<typeof decideProfileMaintenance>[1]['result'];
    try {
      const out = await model.compressProfile(
        { fields },
        { signal: AbortSignal.any([AbortSignal.timeout(options.timeoutMs), signal]) },
      );
      const provenance = {
        provider: out.provider,
        ...(out.model ? { model: out.model } : {}),
        promptVersion: out.promptVersion,
      };
      const named = out.output.fields.map((f) => ({
        ...f,
        field: ProfileFieldName.safeParse(f.field),
      }));
      const unknown = named.find((f) => !f.field.success);
      result = unknown
        ? {
            ok: false,
            error: {
              code: 'invalid_output',
              message: 'the model named a field the profile has not',
            },
            model: provenance,
          }
        : {
            ok: true,
            fields: named.map((f) => ({ field: f.field.data!, value: f.value })),
            model: provenance,
          };
    } catch (error) {
      if (signal.aborted) return false;
      const e = error as { name?: string; code?: string; message?: string };
      result = {
        ok: false,
        error: {
          code: e.name === 'TimeoutError' ? 'timeout' : (e.code ?? 'model_error'),
          message: String(e.message ?? error),
        },
        model: null,
      };
    }
    const at = now();
    await profiles.write(
      tenantId,
      profileId,
      { occurredAt: at.toISOString(), idempotencyKey: key },
      (state) => ({
        records: decideProfileMaintenance(state, {
          basedOnRevision,
          result,
          newChangeId: () => newId('pchg'),
          at: at.toISOString(),
          atMs: at.getTime(),
        }),
        result: null,
      }),
    );
    return true;
  }

  return {
    async run(schema: string, signal: AbortSignal): Promise<number> {
      let ran = 0;
      for (const row of await dueConsentAnswers(db, schema, options.batchSize)) {
        if (signal.aborted) return ran;
        await answer(row);
        ran += 1;
      }
      if (!model.compressProfile) return ran;
      for (const row of await dueProfileMaintenance(db, schema, now(), options.batchSize)) {
        if (signal.aborted) return ran;
        if (await maintain(row.tenant_id, row.profile_id, signal)) ran += 1;
      }
      return ran;
    },
  };
}

/** One key per attempt: the revision read, the failures so far and the last success. */
function attemptKey(state: ProfileState): string {
  const m = state.maintenance;
  return `maintain:r${state.revision}:f${m.failures}:${m.lastSuccessAt ?? 'never'}`;
}
