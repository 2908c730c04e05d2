import { randomBytes, randomUUID } from 'node:crypto';
import {
  sealingPlan,
  spaceKey,
  type NewRecord,
  type SealingSubject,
  type SpaceRef,
  type StoredRecord,
} from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';
import type { MessageLog } from '../message-log.ts';
import type { DataKeyStore } from './data-keys.ts';
import { isEnvelope, keyIdsOf, open, seal, type DataKey, type Envelope } from './envelope.ts';

/**
 * The message log with its records' content sealed (ADR 0046): appends seal each record's data
 * before the log stores it, reads open it again. What the log keeps (its table, a Kafka topic and
 * its index) is ciphertext; erasing deletes keys, and records sealed under them read as erased:
 * `erased: true`, data null, which every reader skips. Records stored before sealing existed are
 * read as they are.
 */
export function createSealedLog(inner: MessageLog, keys: DataKeyStore): MessageLog {
  const opened = (records: StoredRecord[]) => openRecords(records, keys);
  const log: MessageLog = {
    name: inner.name,
    capabilities: inner.capabilities,
    async append(space, records, options) {
      const sealed = await sealRecords(space, records, keys);
      const result = await inner.append(space, sealed, options);
      if (result.status === 'duplicate') {
        const [existing] = await opened([result.existing]);
        return { ...result, existing: existing! };
      }
      // The caller gets back what it appended, in clear.
      return {
        ...result,
        records: result.records.map((r, i) => ({ ...r, data: records[i]!.data })),
      };
    },
    readSpace: async (space, after, limit) => opened(await inner.readSpace(space, after, limit)),
    readAll: async (after, limit) => opened(await inner.readAll(after, limit)),
    async findByIdempotencyKey(space, key) {
      const found = await inner.findByIdempotencyKey(space, key);
      return found ? ((await opened([found]))[0] ?? null) : null;
    },
    spaceVersion: (space) => inner.spaceVersion(space),
    headPosition: () => inner.headPosition(),
    onAppended: (listener) => inner.onAppended(listener),
    close: () => inner.close(),
  };
  if (inner.readAt) {
    const readAt = inner.readAt.bind(inner);
    log.readAt = async (space, position) => {
      const found = await readAt(space, position);
      return found ? ((await opened([found]))[0] ?? null) : null;
    };
  }
  if (inner.maintain) log.maintain = inner.maintain.bind(inner);
  return log;
}

const aadOf = (space: SpaceRef) => `stratagate:${spaceKey(space)}`;

/** A key nobody keeps: what is sealed with it is erased the moment it is written. */
const burned = (): DataKey => ({ id: `burned:${randomUUID()}`, key: randomBytes(32) });

type Json = Record<string, unknown>;

/** The records with their data sealed as their plans say, keys created where needed. */
export async function sealRecords(
  space: SpaceRef,
  records: readonly NewRecord[],
  keys: DataKeyStore,
): Promise<NewRecord[]> {
  const plans = records.map((r) => sealingPlan(r.type, r.data, r.metadata));
  const blockOf = (r: NewRecord) => {
    const id = (r.data as Json | null)?.blockId;
    return r.type !== 'BlockSealed' && typeof id === 'string' ? id : null;
  };
  // Derived from a block: sealed under the key its thread had when the block was sealed.
  const bound = await keys.blockKeys(
    space,
    records.map(blockOf).filter((b): b is string => b !== null),
  );
  const boundKeys = await keys.lookup([...bound.values()]);
  const outers = await keys.ensure(
    space,
    plans.flatMap((p, i) =>
      p.outer && !bound.has(blockOf(records[i]!) ?? '') ? [{ subject: p.outer, parent: null }] : [],
    ),
  );
  const outerKey = (r: NewRecord, subject: SealingSubject): DataKey => {
    const block = blockOf(r);
    const keyId = block === null ? undefined : bound.get(block);
    if (keyId !== undefined) {
      const key = boundKeys.get(keyId);
      return key ? { id: keyId, key } : burned();
    }
    return outers.get(subject) ?? burned();
  };
  const resolved = records.map((r, i) => (plans[i]!.outer ? outerKey(r, plans[i]!.outer!) : null));
  // Parts' keys, by the space they belong to: the record's own, or the conversation a profile
  // record came from (a thread's key there hangs from no other key).
  const wantedBySpace = new Map<string, { subject: SealingSubject; parent: string | null }[]>();
  plans.forEach((p, i) => {
    const parent = resolved[i];
    if (!parent || parent.id.startsWith('burned:')) return;
    for (const part of p.parts) {
      const at = part.space ?? space.spaceId;
      const list = wantedBySpace.get(at) ?? [];
      for (const subject of part.subjects) {
        list.push({ subject, parent: part.space === undefined ? parent.id : null });
      }
      wantedBySpace.set(at, list);
    }
  });
  const inner = new Map<string, Map<SealingSubject, DataKey | null>>();
  for (const [spaceId, wanted] of wantedBySpace) {
    inner.set(spaceId, await keys.ensure({ tenantId: space.tenantId, spaceId }, wanted));
  }
  await keys.bindBlocks(
    space,
    records.flatMap((r, i) => {
      const id = (r.data as Json | null)?.blockId;
      const key = resolved[i];
      return r.type === 'BlockSealed' &&
        typeof id === 'string' &&
        key &&
        !key.id.startsWith('burned:')
        ? [{ blockId: id, keyId: key.id }]
        : [];
    }),
  );
  const aad = aadOf(space);
  return records.map((record, i) => {
    const plan = plans[i]!;
    const outer = resolved[i];
    if (!plan.outer || !outer) return record;
    let data: unknown = structuredClone(record.data);
    for (const part of plan.parts) {
      const partSpace = inner.get(part.space ?? space.spaceId);
      const partKeys = outer.id.startsWith('burned:')
        ? []
        : part.subjects.map((s) => partSpace?.get(s)).filter((k): k is DataKey => !!k);
      // A part that needs every key is born erased when one of them is already gone.
      const complete = part.need !== 'all' || partKeys.length === part.subjects.length;
      const sealPart = (value: unknown): Envelope => {
        const envelope = seal(
          value,
          partKeys.length > 0 && complete ? partKeys : [burned()],
          aad,
          part.need,
        );
        return part.orNull ? { ...envelope, erasedAs: null } : envelope;
      };
      if (part.path.length === 0) {
        data = sealPart(data);
        continue;
      }
      const parentPath = part.path.slice(0, -1);
      const last = part.path[part.path.length - 1]!;
      let holder = data as Json;
      for (const step of parentPath) holder = (holder as Record<string | number, Json>)[step]!;
      (holder as Record<string | number, unknown>)[last] = sealPart(
        (holder as Record<string | number, unknown>)[last],
      );
    }
    return { ...record, data: seal(data, [outer], aad) };
  });
}

const ERASED = Symbol('erased');

/** Every envelope inside `value` (not inside another envelope). */
function nestedEnvelopes(value: unknown, out: Envelope[] = []): Envelope[] {
  if (isEnvelope(value)) out.push(value);
  else if (Array.isArray(value)) for (const v of value) nestedEnvelopes(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) nestedEnvelopes(v, out);
  }
  return out;
}

/**
 * `value` with its envelopes opened. An element of a list that cannot be opened any more is left
 * out (an erased event of an extraction, an operation only erased events backed); a part sealed
 * to read as null then (where a profile change was said) reads as null; anything else that cannot
 * be opened makes the whole value erased.
 */
function openNested(value: unknown, keys: ReadonlyMap<string, Buffer>, aad: string): unknown {
  if (isEnvelope(value)) {
    const opened = open(value, keys, aad);
    if (opened) return openNested(opened.value, keys, aad);
    return 'erasedAs' in value ? null : ERASED;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      const o = openNested(v, keys, aad);
      if (o !== ERASED) out.push(o);
    }
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      const o = openNested(v, keys, aad);
      if (o === ERASED) return ERASED;
      out[k] = o;
    }
    return out;
  }
  return value;
}

/**
 * The records with their data opened: two look-ups of keys for the whole list (the records'
 * own, then those of the parts inside). `db`: where the keys are read (a transaction on the key
 * store's database, for the Kafka projector).
 */
export async function openRecords(
  records: readonly StoredRecord[],
  keys: DataKeyStore,
  db?: AnyDb,
): Promise<StoredRecord[]> {
  const sealed = records.filter((r) => isEnvelope(r.data));
  if (sealed.length === 0) return [...records];
  const found = await keys.lookup(
    sealed.flatMap((r) => keyIdsOf(r.data as Envelope)),
    db,
  );
  const outer = new Map<StoredRecord, unknown>();
  for (const r of sealed) {
    const opened = open(r.data as Envelope, found, aadOf(r.metadata));
    outer.set(r, opened ? opened.value : ERASED);
  }
  const innerIds = [...outer.values()].flatMap((v) =>
    v === ERASED ? [] : nestedEnvelopes(v).flatMap(keyIdsOf),
  );
  const more = await keys.lookup(
    innerIds.filter((id) => !found.has(id)),
    db,
  );
  for (const [id, key] of more) found.set(id, key);
  return records.map((r) => {
    if (!outer.has(r)) return r;
    const value = outer.get(r);
    const data = value === ERASED ? ERASED : openNested(value, found, aadOf(r.metadata));
    return data === ERASED ? { ...r, data: null, erased: true } : { ...r, data };
  });
}
