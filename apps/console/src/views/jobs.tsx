import { useState } from 'preact/hooks';
import { describe, useLoad, useSession } from '../api.ts';
import type { StrataGate } from '@stratagate/client';
import { Badge, Show } from '../ui.tsx';

type Job = 'summary' | 'extraction' | 'graph';

interface FailedJob {
  blockId: string;
  threadId: string;
  turns: string;
  job: Job;
  attempts: number;
  lastError: string | null;
}

const TOPIC_BADGE = { idle: 'succeeded', due: 'pending', failed: 'failed' } as const;

/** The failed derivation jobs of a space, as the API lists them (the first 100 blocks' worth). */
async function failedJobs(client: StrataGate, spaceId: string): Promise<FailedJob[]> {
  const { jobs } = await client.call('listFailedJobs', { spaceId, limit: 100 });
  return jobs.map((j) => ({
    blockId: j.blockId,
    threadId: j.threadId,
    turns: j.turnRange.join('–'),
    job: j.job,
    attempts: j.attempts,
    lastError: j.lastError,
  }));
}

/** Projection and derivation status, refreshed every two seconds, with failed jobs to retry. */
export function JobsView(props: { spaceId: string }) {
  const { spaceId } = props;
  const { client } = useSession();
  const status = useLoad((c) => c.call('getSpaceStatus', { spaceId }), [spaceId], 2000);
  const failed = useLoad((c) => failedJobs(c, spaceId), [spaceId], 4000);
  const [note, setNote] = useState<string | null>(null);
  const [topicNote, setTopicNote] = useState<string | null>(null);
  const retry = async (job: FailedJob) => {
    setNote(null);
    try {
      await client.call('retryDerivation', {
        spaceId,
        blockId: job.blockId,
        body: { job: job.job },
      });
      setNote(`Retry of the ${job.job} job for turns ${job.turns} requested.`);
      status.reload();
      failed.reload();
    } catch (thrown) {
      setNote(describe(thrown));
    }
  };
  const retryTopics = async () => {
    setTopicNote(null);
    try {
      await client.call('retryTopics', { spaceId });
      setTopicNote('Retry of the topic job requested.');
      status.reload();
    } catch (thrown) {
      setTopicNote(describe(thrown));
    }
  };
  return (
    <section aria-labelledby="jobs-title">
      <h2 id="jobs-title">Jobs and projection</h2>
      <p class="muted">Refreshes every two seconds.</p>
      <Show loaded={status} what="the space status">
        {(s) => (
          <>
            <p>
              <Badge kind={s.settled ? 'succeeded' : 'pending'}>
                {s.settled ? 'settled' : 'working'}
              </Badge>{' '}
              projected {s.projectedPosition} of {s.logPosition} in the log · {s.turnCounter} turns
              · blocks {s.blocks.ready} ready, {s.blocks.pending} pending
            </p>
            <table>
              <caption>Derivation jobs</caption>
              <thead>
                <tr>
                  <th scope="col">Job</th>
                  <th scope="col">Pending</th>
                  <th scope="col">Done</th>
                  <th scope="col">Failed</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <th scope="row">summary</th>
                  <td>{s.summaryJobs.pending}</td>
                  <td>{s.summaryJobs.succeeded}</td>
                  <td>{s.summaryJobs.failed}</td>
                </tr>
                <tr>
                  <th scope="row">extraction</th>
                  <td>{s.extractionJobs.pending}</td>
                  <td>
                    {s.extractionJobs.succeeded} (+{s.extractionJobs.skipped} skipped)
                  </td>
                  <td>{s.extractionJobs.failed}</td>
                </tr>
                <tr>
                  <th scope="row">graph</th>
                  <td>{s.graphJobs.pending}</td>
                  <td>{s.graphJobs.completed}</td>
                  <td>{s.graphJobs.failed}</td>
                </tr>
              </tbody>
            </table>
            <h3>Topic directory</h3>
            <p class="topic-jobs">
              <Badge kind={TOPIC_BADGE[s.topicJobs.status]}>{s.topicJobs.status}</Badge>{' '}
              {s.topicJobs.unassignedEvents} events in no chapter yet · {s.topicJobs.pendingUpdate}{' '}
              chapters waiting to be rebuilt
              {s.topicJobs.attempts > 0 ? ` · ${s.topicJobs.attempts} failed attempts` : ''}
              {s.topicJobs.lastError ? <span class="muted">: {s.topicJobs.lastError}</span> : null}
            </p>
            {s.topicJobs.status === 'failed' ? (
              <p>
                The topic job stopped after its attempts; events stay searchable meanwhile.{' '}
                <button type="button" onClick={() => void retryTopics()}>
                  Retry topic job
                </button>
              </p>
            ) : null}
            {topicNote ? <p role="status">{topicNote}</p> : null}
          </>
        )}
      </Show>
      <h3>Failed jobs</h3>
      {note ? <p role="status">{note}</p> : null}
      <Show loaded={failed} what="the failed jobs">
        {(jobs) =>
          jobs.length === 0 ? (
            <p>No failed jobs.</p>
          ) : (
            <ul class="failed-jobs">
              {jobs.map((j) => (
                <li key={`${j.blockId}-${j.job}`}>
                  <Badge kind="failed">failed</Badge> {j.job} of turns {j.turns} in thread{' '}
                  <code>{j.threadId}</code> after {j.attempts} attempts
                  {j.lastError ? <span class="muted">: {j.lastError}</span> : null}{' '}
                  <button type="button" onClick={() => void retry(j)}>
                    Retry {j.job} for turns {j.turns}
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  );
}
