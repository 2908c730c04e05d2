import { useState } from 'preact/hooks';
import type { TargetedSubmitEvent } from 'preact';
import { describe, useLoad, useSession, type OperationOutput } from '../api.ts';
import { pathOf } from '../router.ts';
import { Alert, Field, Link } from '../ui.tsx';

type Found = OperationOutput<'searchEvents'>;
type Assessed = OperationOutput<'assessEvidence'>;
type Adopted = OperationOutput<'adoptEvidence'>;
type Verdict = 'sufficient' | 'partial' | 'wrong';

interface WeightChange {
  id: string;
  title: string;
  before: { value: number; mentionCount: number };
  after: { value: number; mentionCount: number };
}

/**
 * The evidence gate step by step, as an agent goes through it: a search opens a batch of refs,
 * an assessment judges them, an adoption reinforces the events it names (their weight grows).
 */
export function SearchView(props: { spaceId: string }) {
  const { spaceId } = props;
  const { client } = useSession();
  const threads = useLoad((c) => c.call('listThreads', { spaceId, limit: 200 }), [spaceId]);
  const [threadId, setThreadId] = useState('console');
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Found | null>(null);
  const [chosen, setChosen] = useState<string[]>([]);
  const [verdict, setVerdict] = useState<Verdict>('sufficient');
  const [fit, setFit] = useState('');
  const [assessed, setAssessed] = useState<Assessed | null>(null);
  const [adopted, setAdopted] = useState<Adopted | null>(null);
  const [changes, setChanges] = useState<WeightChange[]>([]);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const step = async (name: string, work: () => Promise<void>) => {
    setBusy(name);
    setError(null);
    try {
      await work();
    } catch (thrown) {
      setError(describe(thrown));
    } finally {
      setBusy(null);
    }
  };
  const search = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    void step('search', async () => {
      const answer = await client.call('searchEvents', {
        spaceId,
        threadId,
        body: { query: query.trim(), limit: 10 },
      });
      setFound(answer);
      setChosen([]);
      setAssessed(null);
      setAdopted(null);
      setChanges([]);
    });
  };
  const assess = () =>
    void step('assess', async () => {
      setAssessed(
        await client.call('assessEvidence', {
          spaceId,
          threadId,
          body: {
            batchId: found!.batchId,
            verdict,
            evidence_refs: chosen,
            ...(fit.trim() ? { fit: fit.trim() } : {}),
            next_strategy: verdict === 'sufficient' ? 'answer' : 'search_again',
          },
        }),
      );
    });
  const adopt = () =>
    void step('adopt', async () => {
      const hits = found!.hits.filter((h) => chosen.includes(h.ref));
      const answer = await client.call('adoptEvidence', {
        spaceId,
        threadId,
        body: { batchId: found!.batchId, evidence_refs: chosen },
      });
      setAdopted(answer);
      // Adoption is recorded in the log; the weights change once it is projected.
      await client.waitUntilSettled(spaceId, { timeoutMs: 20_000 });
      const after = await Promise.all(
        hits.map((h) => client.call('getMemoryEvent', { spaceId, eventId: h.id })),
      );
      setChanges(
        hits.map((h, i) => ({
          id: h.id,
          title: h.title,
          before: { value: h.weight.value, mentionCount: h.weight.mentionCount },
          after: { value: after[i]!.weight.value, mentionCount: after[i]!.weight.mentionCount },
        })),
      );
    });
  const toggle = (ref: string, on: boolean) =>
    setChosen((refs) => (on ? [...refs, ref] : refs.filter((r) => r !== ref)));

  return (
    <section aria-labelledby="search-title">
      <h2 id="search-title">Search playground</h2>
      <p class="muted">
        A search here is a real retrieval in the thread you name: it opens an evidence batch, as an
        agent's search does. Assess it, then adopt the refs you would cite.
      </p>
      <form class="row" onSubmit={search}>
        <Field label="Thread">
          <input
            list="search-threads"
            value={threadId}
            onInput={(e) => setThreadId(e.currentTarget.value)}
            required
          />
          <datalist id="search-threads">
            {(threads.data?.threads ?? []).map((t) => (
              <option key={t.threadId} value={t.threadId} />
            ))}
          </datalist>
        </Field>
        <Field label="Query">
          <input
            type="search"
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
            required
          />
        </Field>
        <button type="submit" disabled={busy !== null}>
          {busy === 'search' ? 'Searching…' : 'Search'}
        </button>
      </form>
      <Alert message={error} />
      {found ? (
        <>
          <h3>
            Batch <code>{found.batchId}</code>
          </h3>
          {found.hits.length === 0 ? <p>Nothing found.</p> : null}
          <ol class="hits">
            {found.hits.map((h) => (
              <li key={h.ref}>
                <label class="check">
                  <input
                    type="checkbox"
                    checked={chosen.includes(h.ref)}
                    onChange={(e) => toggle(h.ref, e.currentTarget.checked)}
                  />
                  <span>
                    <strong>{h.title}</strong> <code>{h.ref}</code>
                  </span>
                </label>
                <p>{h.summary}</p>
                <p class="muted">
                  rank {h.rankScore.toFixed(3)} ({h.scoreMeaning}) · weight{' '}
                  {h.weight.value.toFixed(3)} · mentioned {h.weight.mentionCount}× ·{' '}
                  <Link href={pathOf('spaces', spaceId, 'events', h.id)}>open event</Link>
                </p>
              </li>
            ))}
          </ol>
          <fieldset>
            <legend>Assessment</legend>
            <Field label="Verdict" id="search-verdict">
              <select
                id="search-verdict"
                value={verdict}
                onChange={(e) => setVerdict(e.currentTarget.value as Verdict)}
              >
                <option value="sufficient">sufficient</option>
                <option value="partial">partial</option>
                <option value="wrong">wrong</option>
              </select>
            </Field>
            <Field label="Why they fit">
              <input value={fit} onInput={(e) => setFit(e.currentTarget.value)} />
            </Field>
            <button type="button" disabled={busy !== null} onClick={assess}>
              {busy === 'assess' ? 'Assessing…' : 'Assess batch'}
            </button>
            <button type="button" disabled={busy !== null || chosen.length === 0} onClick={adopt}>
              {busy === 'adopt' ? 'Adopting…' : `Adopt ${chosen.length} selected`}
            </button>
          </fieldset>
          {assessed ? (
            <p role="status">
              Assessed: <strong>{assessed.verdict}</strong> with {assessed.evidenceRefs.length} refs
              {assessed.rejectedEvidenceRefs.length > 0
                ? `; refused: ${assessed.rejectedEvidenceRefs.map((r) => `${String(r.ref)} (${r.reason})`).join(', ')}`
                : ''}
              . Batch {assessed.batchStatus}.
            </p>
          ) : null}
          {adopted ? (
            <div role="status">
              <p>
                Adopted: {adopted.incremented} event{adopted.incremented === 1 ? '' : 's'}{' '}
                reinforced (receipt <code>{adopted.receiptId}</code>).
              </p>
              {changes.length > 0 ? (
                <table>
                  <caption>Weight change</caption>
                  <thead>
                    <tr>
                      <th scope="col">Event</th>
                      <th scope="col">Mentions</th>
                      <th scope="col">Weight</th>
                    </tr>
                  </thead>
                  <tbody>
                    {changes.map((c) => (
                      <tr key={c.id} class="weight-change">
                        <td>{c.title}</td>
                        <td>
                          {c.before.mentionCount} → {c.after.mentionCount}
                        </td>
                        <td>
                          {c.before.value.toFixed(3)} → {c.after.value.toFixed(3)}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : (
                <p aria-live="polite">Waiting for the new weights…</p>
              )}
            </div>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
