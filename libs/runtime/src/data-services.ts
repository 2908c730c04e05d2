import { spaceKey } from '@stratagate/domain';
import type { DataServices, ImportServices } from '@stratagate/data';
import type { DataKeyStore, MessageLog } from '@stratagate/log';
import {
  DEFAULT_GROUP_PREFIX,
  kafkaProjectionGroup,
  reprojectSpace,
  type KafkaSource,
} from '@stratagate/projector';
import type { AnyDb, PostingCache } from '@stratagate/store';
import type { ProfileWriter, SpaceWriterService, WriterSnapshots } from '@stratagate/writer';
import type { Config } from './config.ts';

/** The data service's dependencies, for a node's query role or a CLI command. */
export function dataServicesOf(options: {
  config: Config;
  /** The read models' database. */
  db: AnyDb;
  log: MessageLog;
  keys: DataKeyStore;
  kafka: KafkaSource | null;
  writer: SpaceWriterService;
  profiles: ProfileWriter;
  snapshots: WriterSnapshots;
  postingCache?: PostingCache | null;
  liveSchema: () => Promise<string>;
  now: () => Date;
  /** External memory import, where the node serves queries. */
  imports?: ImportServices;
}): DataServices {
  const { config, db, log, kafka } = options;
  return {
    db,
    log,
    now: options.now,
    importLimitBytes: config.STRATAGATE_IMPORT_LIMIT_BYTES,
    writer: options.writer,
    profiles: options.profiles,
    keys: options.keys,
    snapshots: options.snapshots,
    ...(options.postingCache ? { postingCache: options.postingCache } : {}),
    liveSchema: options.liveSchema,
    ...(options.imports ? { imports: options.imports } : {}),
    reprojectSpace: async (space) => {
      await reprojectSpace({
        db,
        log,
        base: config.STRATAGATE_READ_MODEL_SCHEMA,
        space,
        // On Kafka a version holds what its consumer group applied, space by space (ADR 0012).
        ...(kafka
          ? {
              appliedVersion: async (trx, schema, name, version) => {
                const prefix =
                  version === 'live' ? DEFAULT_GROUP_PREFIX : `${DEFAULT_GROUP_PREFIX}-build`;
                const group = kafkaProjectionGroup(prefix, kafka.topic, name, schema);
                const applied = await kafka.checkpoints.spaceVersions(trx, group, kafka.topic, [
                  space,
                ]);
                return applied.get(spaceKey(space)) ?? 0;
              },
            }
          : {}),
      });
    },
  };
}
