import type { SpaceRef } from '@stratagate/domain';
import type { DataKeyStore, MessageLog } from '@stratagate/log';
import type { AnyDb, PostingCache } from '@stratagate/store';
import type { ProfileWriter, SpaceWriterService, WriterSnapshots } from '@stratagate/writer';
import type { ImportServices } from './imports.ts';

/** What the data service (export, import, erasure) is built from, once per process. */
export interface DataServices {
  /** The read models' database (import marks, erasure's physical deletes). */
  db: AnyDb;
  /** The sealed log: appends seal, reads open (ADR 0046). */
  log: MessageLog;
  now: () => Date;
  /** Largest export file an HTTP import takes, in bytes. */
  importLimitBytes: number;
  /** Where an HTTP import keeps the file while it verifies and applies it (default: the OS's). */
  tmpDir?: string;
  /** The process's space writer: an erasure's record goes through the space's lock. */
  writer: SpaceWriterService;
  /** The process's profile writer: an erasure expires the proposals made in what it erases. */
  profiles: ProfileWriter;
  /** The data keys an erasure deletes. */
  keys: DataKeyStore;
  /** The writers' snapshots, which an erasure drops for the space. */
  snapshots?: WriterSnapshots;
  /** The query role's posting cache, which an erasure empties of the space. */
  postingCache?: PostingCache;
  /** The live read-model schema (a cached lookup). */
  liveSchema: () => Promise<string>;
  /** Rebuilds the space's rows in every read-model version from its records as they read now. */
  reprojectSpace: (space: SpaceRef) => Promise<void>;
  /** External memory import (beside the query role, whose search it uses); none in the CLI. */
  imports?: ImportServices;
}
