import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendCases } from './contract/append.cases.ts';
import type { ContractContext } from './contract/fixtures.ts';
import { idempotencyCases } from './contract/idempotency.cases.ts';
import { readingCases } from './contract/reading.cases.ts';
import type { LogCapabilities, MessageLog } from './message-log.ts';

export interface MessageLogFixture {
  log: MessageLog;
  teardown: () => Promise<void>;
}

export interface MessageLogContractOptions {
  /**
   * What the adapter declares. Needed when the cases are registered (before any log exists) so
   * unsupported cases are reported as skipped; a case checks it matches `log.capabilities`.
   * Defaults to everything supported.
   */
  capabilities?: LogCapabilities;
  /** How long a committed append may take to appear in readAll. Default 10 s. */
  visibilityTimeoutMs?: number;
}

const ALL: LogCapabilities = { expectedVersion: true, globalOrder: true, idempotentAppend: true };

/**
 * The behaviour every MessageLog adapter must show. Call it from the adapter's spec; `factory`
 * must return an empty log (a fresh schema, topic set or stream prefix) for every case.
 */
export function testMessageLog(
  name: string,
  factory: () => Promise<MessageLogFixture>,
  options: MessageLogContractOptions = {},
): void {
  const capabilities = options.capabilities ?? ALL;
  let fixture: MessageLogFixture | undefined;
  const ctx: ContractContext = {
    capabilities,
    visibilityTimeoutMs: options.visibilityTimeoutMs ?? 10_000,
    log() {
      if (!fixture) throw new Error('no log: the factory has not run');
      return fixture.log;
    },
  };

  describe(`MessageLog contract: ${name}`, () => {
    beforeEach(async () => {
      fixture = await factory();
    });
    afterEach(async () => {
      const current = fixture;
      fixture = undefined;
      await current?.log.close();
      await current?.teardown();
    });

    it('declares the capabilities the suite was registered with', () => {
      expect(ctx.log().capabilities).toEqual(capabilities);
      expect(ctx.log().name).toEqual(expect.any(String));
    });

    describe('append', () => appendCases(ctx));
    describe('idempotency', () => idempotencyCases(ctx));
    describe('reading', () => readingCases(ctx));
  });
}
