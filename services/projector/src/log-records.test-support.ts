import { decodeRecord, type DecodedRecord } from '@stratagate/domain';
import type { MessageLog } from '@stratagate/log';

/**
 * Every record of the log up to its head, decoded (tests that hand a projection the log as one
 * batch). On a shared server `readAll` trails the committed head until older transactions
 * finish, so this reads again until the head is visible.
 */
export async function recordsUpToHead(
  log: MessageLog,
): Promise<{ head: number; records: DecodedRecord[] }> {
  const head = await log.headPosition();
  let stored = await log.readAll(0, 1000);
  while (stored[stored.length - 1]?.position !== head) {
    await new Promise((r) => setTimeout(r, 20));
    stored = await log.readAll(0, 1000);
  }
  return { head, records: stored.map((r) => decodeRecord(r)!) };
}
