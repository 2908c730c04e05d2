import { z } from 'zod';
import { DEFAULT_DECAY_LAMBDA } from '@stratagate/domain';
import { DEFAULT_READ_MODEL_SCHEMA, type DatabaseTarget } from '@stratagate/store';

export const ROLES = ['ingest', 'projector', 'consolidator', 'query'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Every setting the processes read, with its environment name. Service code receives a parsed
 * Config and never reads process.env itself. infra/ manifests may only set names listed here.
 */
export const ConfigSchema = z
  .object({
    DATABASE_URL: z
      .string()
      .url()
      .optional()
      .describe('Postgres server; PGlite in STRATAGATE_DATA_DIR when unset'),
    STRATAGATE_DATA_DIR: z.string().default('./.stratagate'),
    STRATAGATE_PG_PREPARED_STATEMENTS: z.coerce
      .number()
      .int()
      .min(0)
      .max(10_000)
      .default(128)
      .describe(
        'statements kept prepared per pooled Postgres connection (ADR 0021); 0 sends every statement unnamed, for a pooler that cannot keep them',
      ),
    STRATAGATE_HOST: z.string().default('127.0.0.1'),
    STRATAGATE_PORT: z.coerce.number().int().min(0).max(65535).default(8787),
    STRATAGATE_ROLES: z
      .string()
      .default('all')
      .transform((s, ctx) => {
        if (s === 'all') return [...ROLES];
        const roles = s.split(',').map((r) => r.trim());
        for (const r of roles) {
          if (!(ROLES as readonly string[]).includes(r)) {
            ctx.addIssue({
              code: 'custom',
              message: `unknown role '${r}' (use ${ROLES.join(', ')} or all)`,
            });
          }
        }
        return roles as Role[];
      }),
    STRATAGATE_BACKGROUND_THREAD: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true')
      .describe(
        'on a Postgres server, `serve` runs the projector and consolidator in a worker thread beside ingest and query (ADR 0016)',
      ),
    STRATAGATE_OFFLINE_MODEL_THREAD: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true')
      .describe(
        'the offline provider runs on a worker thread of its own when the consolidator shares the event loop with another role (ADR 0022)',
      ),
    STRATAGATE_LOG_BACKEND: z
      .enum(['postgres', 'kafka'])
      .default('postgres')
      .describe(
        'message log: a table in the database (default), or a Kafka topic indexed in the database (ADR 0007)',
      ),
    KAFKA_BROKERS: z
      .string()
      .optional()
      .describe('comma-separated host:port list; required when STRATAGATE_LOG_BACKEND=kafka'),
    STRATAGATE_KAFKA_TOPIC: z.string().min(1).default('stratagate.records'),
    STRATAGATE_KAFKA_PARTITIONS: z.coerce
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(12)
      .describe('partitions when StrataGate creates the topic (brokers that allow CreateTopics)'),
    STRATAGATE_KAFKA_SESSION_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(10_000)
      .describe('consumer-group session timeout: how soon a dead projector loses its partitions'),
    STRATAGATE_READ_MODEL_SCHEMA: z
      .string()
      .default(DEFAULT_READ_MODEL_SCHEMA)
      .describe(
        'base schema of the read model; after a rebuild the control table names the live one',
      ),
    STRATAGATE_PROJECTION_REFRESH_MS: z.coerce
      .number()
      .int()
      .min(10)
      .default(1000)
      .describe('how often readers re-check which read-model version is live (ADR 0009)'),
    STRATAGATE_DEFAULT_DECAY_LAMBDA: z.coerce
      .number()
      .finite()
      .min(0)
      .max(5)
      .default(DEFAULT_DECAY_LAMBDA)
      .describe(
        'projection rule: fading λ of spaces never configured; for a fresh database, else applied by a rebuild',
      ),
    STRATAGATE_API_KEY: z
      .string()
      .min(32)
      .optional()
      .describe('register this key for STRATAGATE_TENANT on start'),
    STRATAGATE_TENANT: z.string().default('local'),
    STRATAGATE_BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(2 * 1024 * 1024),
    STRATAGATE_REQUEST_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(3_600_000)
      .default(30_000)
      .describe(
        'how long a client has to send a whole request, headers and body; one still incomplete then is answered 408 and its connection closed (ADR 0039)',
      ),
    STRATAGATE_IMPORT_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024 * 1024)
      .describe('largest export file `POST /v1/spaces/{spaceId}/import` takes (ADR 0045)'),
    STRATAGATE_LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    STRATAGATE_REMEMBER_ENABLED: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true')
      .describe('agents may write memories directly (MM-REM-1)'),
    STRATAGATE_OTLP_ENDPOINT: z
      .string()
      .url()
      .optional()
      .describe(
        'OTLP/HTTP base URL (traces to /v1/traces, metrics to /v1/metrics); unset = nothing exported',
      ),
    STRATAGATE_OTEL_SERVICE_NAME: z
      .string()
      .min(1)
      .optional()
      .describe('service.name; default stratagate, or stratagate-<role> for one role'),
    STRATAGATE_OTLP_METRICS_INTERVAL_MS: z.coerce.number().int().min(1000).default(60_000),
    STRATAGATE_MODEL_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
    STRATAGATE_TOPIC_BUILDER: z
      .enum(['offline', 'model'])
      .default('offline')
      .describe('who builds the topic directory: the offline builder, or the configured model'),
    STRATAGATE_MODEL_THREAD_NICE: z.coerce
      .number()
      .int()
      .min(0)
      .max(19)
      .default(10)
      .describe(
        "Linux: nice value of the offline model's thread, so that requests and projection get the CPU before the model's work; 0 keeps the process's (ADR 0032)",
      ),
    STRATAGATE_CONSOLIDATOR_YIELD_RATE: z.coerce
      .number()
      .int()
      .min(0)
      .default(500)
      .describe(
        'Postgres-table log: consolidation waits (at most 10 s per busy period) while others append more records per second than this; 0 never waits (ADR 0026)',
      ),
    STRATAGATE_CONSOLIDATOR_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(256)
      .default(4)
      .describe(
        'how many spaces one consolidator works on at once (model calls wait on I/O); never two jobs of one space (ADR 0042)',
      ),
    STRATAGATE_CONSOLIDATOR_LEASE_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .max(3_600_000)
      .default(30_000)
      .describe(
        "how long a consolidator's claim on a space lasts unless renewed (every third of it while its jobs run): after a consolidator dies, its spaces wait this long for another (ADR 0042)",
      ),
    STRATAGATE_MAX_PROJECTION_LAG_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(3_600_000)
      .default(3_000)
      .describe(
        'Postgres-table log, projector in the same process as ingest: a turn waits before its append while the oldest record not yet projected is older than this; 0 never waits (ADR 0031)',
      ),
    STRATAGATE_BACKPRESSURE_MAX_WAIT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(600_000)
      .default(5_000)
      .describe(
        'longest one turn waits for the projection lag to come down before it is appended anyway (ADR 0031)',
      ),
    STRATAGATE_READY_STALL_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(3_600_000)
      .default(60_000)
      .describe(
        'Postgres-table log, projector in this process: /readyz answers 503 once the projector or its raw-search indexing lane has work and has not moved for this long (ADR 0043)',
      ),
    STRATAGATE_EMBEDDED_BATCH_MS: z.coerce
      .number()
      .min(1)
      .max(10_000)
      .default(20)
      .describe(
        'embedded store: the projector sizes its batches and indexing slices to hold the one session about this long (ADR 0019)',
      ),
    STRATAGATE_SEARCH_CACHE_MB: z.coerce
      .number()
      .min(0)
      .max(65_536)
      .default(64)
      .describe('posting cache of the query role in MiB (ADR 0018); 0 turns it off'),
    // Read by @stratagate/model's loadModelConfigFromEnv; listed here so every name is known.
    STRATAGATE_MODEL_BASE_URL: z.string().optional(),
    STRATAGATE_MODEL_API_KEY: z.string().optional(),
    STRATAGATE_MODEL_NAME: z.string().optional(),
    STRATAGATE_MODEL_RESPONSE_FORMAT: z.string().optional(),
  })
  .superRefine((c, ctx) => {
    if (c.STRATAGATE_LOG_BACKEND === 'kafka' && !c.KAFKA_BROKERS?.trim()) {
      ctx.addIssue({
        code: 'custom',
        path: ['KAFKA_BROKERS'],
        message: 'required when STRATAGATE_LOG_BACKEND=kafka',
      });
    }
  });
export type Config = z.infer<typeof ConfigSchema>;
export const CONFIG_ENV_NAMES = Object.keys(ConfigSchema.shape);

export function loadConfig(
  env: Record<string, string | undefined>,
  overrides: Partial<Record<string, string>> = {},
): Config {
  const picked: Record<string, string> = {};
  for (const name of CONFIG_ENV_NAMES) {
    const value = overrides[name] ?? env[name];
    if (value !== undefined && value !== '') picked[name] = value;
  }
  const parsed = ConfigSchema.safeParse(picked);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Where the data lives, as configured: the Postgres server, or PGlite in the data directory. */
export function databaseTarget(config: Config): DatabaseTarget {
  return config.DATABASE_URL
    ? {
        kind: 'postgres',
        url: config.DATABASE_URL,
        preparedStatements: config.STRATAGATE_PG_PREPARED_STATEMENTS,
      }
    : { kind: 'pglite', dataDir: config.STRATAGATE_DATA_DIR };
}

/** Rules of the core projection as configured (a fresh database's first version, a rebuild). */
export function coreRulesFromConfig(config: Config): { defaultDecayLambda: number } {
  return { defaultDecayLambda: config.STRATAGATE_DEFAULT_DECAY_LAMBDA };
}
