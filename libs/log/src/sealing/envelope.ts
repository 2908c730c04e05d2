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
  /**
   * Every data key is needed: each wrapping holds one share of the content key, which is their
   * XOR, so deleting any one of the keys erases the value (a topic chapter quoting several
   * memory events, each erasable on its own).
   */
  all?: 1;
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
export function seal(
  value: unknown,
  keys: readonly DataKey[],
  aad: string,
  need: 'any' | 'all' = 'any',
): Envelope {
  const contentKey = randomBytes(32);
  // With `all`, the last share makes the XOR of all shares equal the content key.
  const shares =
    need === 'all' && keys.length > 0
      ? keys.map((_k, i) => (i < keys.length - 1 ? randomBytes(32) : Buffer.from(contentKey)))
      : [];
  for (let i = 0; i < shares.length - 1; i++) xorInto(shares[shares.length - 1]!, shares[i]!);
  const iv = randomBytes(12);
  const cipher = createCipheriv(ALGORITHM, contentKey, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(JSON.stringify(value ?? null), 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  const to = keys.map((k, i) => {
    const wrapIv = randomBytes(12);
    const wrap = createCipheriv(ALGORITHM, k.key, wrapIv);
    wrap.setAAD(Buffer.from(`${aad}\n${k.id}`));
    const w = Buffer.concat([wrap.update(shares[i] ?? contentKey), wrap.final()]);
    return { k: k.id, iv: b64(wrapIv), w: b64(w), tag: b64(wrap.getAuthTag()) };
  });
  contentKey.fill(0);
  for (const share of shares) share.fill(0);
  return {
    $sealed: 1,
    iv: b64(iv),
    ct: b64(ct),
    tag: b64(tag),
    to,
    ...(shares.length > 0 ? { all: 1 as const } : {}),
  };
}

function xorInto(target: Buffer, other: Buffer): void {
  for (let i = 0; i < target.length; i++) target[i] = target[i]! ^ other[i]!;
}

/** The ids of the data keys that could open `envelope`. */
export const keyIdsOf = (envelope: Envelope): string[] => envelope.to.map((t) => t.k);

/**
 * The value, or `undefined` when none of its data keys is in `keys` any more (erased); for an
 * envelope that needs all its keys, when any one of them is gone.
 */
export function open(
  envelope: Envelope,
  keys: ReadonlyMap<string, Buffer>,
  aad: string,
): { value: unknown } | undefined {
  const unwrap = (wrapping: Envelope['to'][number], key: Buffer) => {
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(wrapping.iv, 'base64'));
    decipher.setAAD(Buffer.from(`${aad}\n${wrapping.k}`));
    decipher.setAuthTag(Buffer.from(wrapping.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(wrapping.w, 'base64')), decipher.final()]);
  };
  let contentKey: Buffer | undefined;
  if (envelope.all === 1) {
    if (envelope.to.length === 0 || envelope.to.some((w) => !keys.has(w.k))) return undefined;
    for (const wrapping of envelope.to) {
      const share = unwrap(wrapping, keys.get(wrapping.k)!);
      if (contentKey) xorInto(contentKey, share);
      else contentKey = share;
    }
  } else {
    const wrapping = envelope.to.find((w) => keys.has(w.k));
    if (wrapping) contentKey = unwrap(wrapping, keys.get(wrapping.k)!);
  }
  if (!contentKey) return undefined;
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
