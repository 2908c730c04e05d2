import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          sequence: { groupOrder: 0 },
          include: [
            'libs/**/*.unit.spec.ts',
            'services/**/*.unit.spec.ts',
            'infra/**/*.unit.spec.ts',
            'docs/**/*.unit.spec.ts',
          ],
        },
      },
      {
        test: {
          name: 'integration',
          sequence: { groupOrder: 1 },
          include: [
            'libs/**/*.int.spec.ts',
            'services/**/*.int.spec.ts',
            'services/**/*.e2e.spec.ts',
            'test/**/*.spec.ts',
            'eval/**/*.e2e.spec.ts',
          ],
          // A real Kafka broker in a container when Docker and testcontainers are there and
          // KAFKA_BROKERS is not set; otherwise nothing (see the file).
          globalSetup: ['test/support/kafka-broker.global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Integration suites share one machine's Postgres and 2 cores; keep them from starving each other.
          maxWorkers: 2,
        },
      },
    ],
  },
});
