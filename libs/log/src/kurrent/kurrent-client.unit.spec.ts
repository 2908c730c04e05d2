import { expect, it } from 'vitest';
import { createKurrentClient } from './kurrent-client.ts';
import { createKurrentLog } from './kurrent-log.ts';

// No server here: this only shows the official client loads (native bridge included), fits the
// log's client shape (type-checked), and that an unreachable server fails a call instead of hanging.
it('loads the official client on demand; an unreachable server fails the call', async () => {
  const client = await createKurrentClient('kurrentdb://127.0.0.1:1?tls=false');
  const log = await createKurrentLog({ client, ownsClient: true, deadlineMs: 5_000 });
  try {
    await expect(log.spaceVersion({ tenantId: 't', spaceId: 's' })).rejects.toMatchObject({
      type: 'unavailable',
    });
  } finally {
    await log.close();
  }
}, 30_000);
