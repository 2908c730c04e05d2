import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * A sealed value (ADR 0046): the value's JSON encrypted with AES-256-GCM under a fresh content key,
 * and that content key wrapped (AES-256-GCM) under each data key that may open it. Whoever holds
 * one of those data keys reads the value; once all of them are deleted nobody does. Stored in the
 * record's data in place of the value, so every store the log writes to (its table, Kafka's topic
 * and index) holds only this.
 */
export interface Envelope {
  $sealed: 1;
  iv: string;
  ct: string;
  tag: string;
  /** One wrapping of the content key per data key, by the data key's id. */
  to: { k: string; iv: string; w: string; tag: string }[];
  /** Present: once no key opens it, the value reads as this (null) instead of erasing its record. */
  erasedAs?: null;
}

export interface DataKey {
  id: string;
  key: Buffer;
}

const ALGORITHM = 'aes-256-gcm';
const b64 = (b: Buffer) => b.toString('base64');

export function isEnvelope(value: unknown): value is Envelope {
  return (
    typeof value === 'object' && value !== null && (value as { $sealed?: unknown }).$sealed === 1
  );
}

/**
 * `value` sealed for `keys`; `aad` (the record's space) is authenticated with it, so a sealed value
 * copied into another space's record does not open. With no keys the content key is dropped at once:
 * the value is born erased (a late record of something already erased).
 */
export function seal(value: unknown, keys: readonly DataKey[], aad: string): Envelope {
  const contentKey = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv(ALGORITHM, contentKey, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(JSON.stringify(value ?? null), 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  const to = keys.map((k) => {
    const wrapIv = randomBytes(12);
    const wrap = createCipheriv(ALGORITHM, k.key, wrapIv);
    wrap.setAAD(Buffer.from(`${aad}\n${k.id}`));
    const w = Buffer.concat([wrap.update(contentKey), wrap.final()]);
    return { k: k.id, iv: b64(wrapIv), w: b64(w), tag: b64(wrap.getAuthTag()) };
  });
  contentKey.fill(0);
  return { $sealed: 1, iv: b64(iv), ct: b64(ct), tag: b64(tag), to };
}

/** The ids of the data keys that could open `envelope`. */
export const keyIdsOf = (envelope: Envelope): string[] => envelope.to.map((t) => t.k);

/** The value, or `undefined` when none of its data keys is in `keys` any more (erased). */
export function open(
  envelope: Envelope,
  keys: ReadonlyMap<string, Buffer>,
  aad: string,
): { value: unknown } | undefined {
  for (const wrapping of envelope.to) {
    const key = keys.get(wrapping.k);
    if (!key) continue;
    const unwrap = createDecipheriv(ALGORITHM, key, Buffer.from(wrapping.iv, 'base64'));
    unwrap.setAAD(Buffer.from(`${aad}\n${wrapping.k}`));
    unwrap.setAuthTag(Buffer.from(wrapping.tag, 'base64'));
    const contentKey = Buffer.concat([
      unwrap.update(Buffer.from(wrapping.w, 'base64')),
      unwrap.final(),
    ]);
    const decipher = createDecipheriv(ALGORITHM, contentKey, Buffer.from(envelope.iv, 'base64'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(envelope.tag, 'base64'));
    const text = Buffer.concat([
      decipher.update(Buffer.from(envelope.ct, 'base64')),
      decipher.final(),
    ]).toString('utf8');
    contentKey.fill(0);
    return { value: JSON.parse(text) as unknown };
  }
  return undefined;
}
