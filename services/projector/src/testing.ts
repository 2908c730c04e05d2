/** Helpers for tests only: `@stratagate/projector/testing`. */
import { decodeRecord, type DecodedRecord } from '@stratagate/domain';
import type { MessageLog } from '@stratagate/log';

const pause = () => new Promise((r) => setTimeout(r, 20));

/**
 * The log's head once `readAll` shows it. On a shared server `readAll` trails the committed head
 * until older transactions anywhere on the server finish (the safe horizon of postgres-log.ts), so
 * a test that asserts how a projector batches what is there waits for it to be visible first.
 */
export async function visibleHead(log: MessageLog): Promise<number> {
  const head = await log.headPosition();
  while ((await log.readAll(head - 1, 1)).length === 0) await pause();
  return head;
}

/**
 * Every record of the log up to its head, decoded (tests that hand a projection the log as one
 * batch), read once the head is visible.
 */
export async function recordsUpToHead(
  log: MessageLog,
): Promise<{ head: number; records: DecodedRecord[] }> {
  const head = await visibleHead(log);
  const stored = await log.readAll(0, 1000);
  return { head, records: stored.map((r) => decodeRecord(r)!) };
}
