import { useState } from 'preact/hooks';
import type { TargetedSubmitEvent } from 'preact';
import { describe, useLoad, useSession, type OperationOutput } from '../api.ts';
import { navigate, pathOf } from '../router.ts';
import { Alert, Badge, Field, Link, Show } from '../ui.tsx';

type Import = OperationOutput<'getImport'>;
type Action = Import['items'][number]['action'];
const ACTIONS: Action[] = ['ADD', 'MERGE', 'SUPERSEDE', 'CONFLICT', 'IGNORE'];

/** An external memory import: paste, preview each item's decision, change some, commit, undo. */
export function ImportsView(props: { spaceId: string; importId: string | null }) {
  const { spaceId, importId } = props;
  const { client } = useSession();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const preview = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const started = await client.call('previewImport', { spaceId, body: { text } });
      navigate(pathOf('spaces', spaceId, 'imports', started.importId));
    } catch (thrown) {
      setError(describe(thrown));
    } finally {
      setBusy(false);
    }
  };
  if (importId) return <ImportView spaceId={spaceId} importId={importId} />;
  return (
    <section aria-labelledby="imports-title">
      <h2 id="imports-title">Import memories from another system</h2>
      <p class="muted">
        Paste an export (for example another assistant's saved memories, as JSON). Nothing is
        written until you commit, and a commit can be undone.
      </p>
      <form onSubmit={preview}>
        <Field label="Export to import" wide>
          <textarea
            rows={10}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            required
          />
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Previewing…' : 'Preview'}
        </button>
      </form>
      <Alert message={error} />
    </section>
  );
}

function ImportView(props: { spaceId: string; importId: string }) {
  const { spaceId, importId } = props;
  const { client } = useSession();
  const loaded = useLoad(
    (c) => c.call('getImport', { spaceId, importId }),
    [spaceId, importId],
    // While it is being worked on, look again every second.
    1000,
  );
  const [decisions, setDecisions] = useState<Record<number, Action>>({});
  const [note, setNote] = useState<string | null>(null);
  const act = async (what: string, work: () => Promise<unknown>) => {
    setNote(null);
    try {
      await work();
      setNote(`${what}: done.`);
      loaded.reload();
    } catch (thrown) {
      setNote(describe(thrown));
    }
  };
  return (
    <Show loaded={loaded} what={`The import “${importId}”`}>
      {(imp) => (
        <section aria-labelledby="import-title">
          <h2 id="import-title">
            Import <code>{imp.importId}</code> <Badge kind={imp.state}>{imp.state}</Badge>
          </h2>
          <p>
            <Link href={pathOf('spaces', spaceId, 'imports')}>New import</Link>
          </p>
          {imp.source ? (
            <p>
              From {imp.source.sourceSystem} ({imp.source.format}), coverage {imp.source.coverage}
              {imp.source.coverageNote ? `: ${imp.source.coverageNote}` : ''}
            </p>
          ) : null}
          <Alert message={imp.error} />
          <p>
            {imp.counts.candidates} items: {imp.counts.add} add, {imp.counts.merge} merge,{' '}
            {imp.counts.supersede} supersede, {imp.counts.conflict} conflict, {imp.counts.ignore}{' '}
            ignore; {imp.counts.needsConfirmation} need your confirmation.
          </p>
          <table>
            <caption class="sr-only">Items and their decisions</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Item</th>
                <th scope="col">Matches</th>
                <th scope="col">Decision</th>
              </tr>
            </thead>
            <tbody>
              {imp.items.map((item) => (
                <tr key={item.index}>
                  <td>{item.index}</td>
                  <td>
                    <strong>{item.title ?? '(untitled)'}</strong>
                    <p>{item.summary}</p>
                    <span class="muted">
                      {item.reason ?? ''} (by {item.decidedBy}, confidence {item.confidence})
                    </span>
                  </td>
                  <td>
                    <ul>
                      {item.matches.map((m) => (
                        <li key={m.id}>
                          <Link href={pathOf('spaces', spaceId, 'events', m.id)}>{m.title}</Link>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <label class="sr-only" for={`decision-${item.index}`}>
                      Decision for item {item.index}
                    </label>
                    <select
                      id={`decision-${item.index}`}
                      value={decisions[item.index] ?? item.action}
                      disabled={imp.state === 'committed' || imp.state === 'undone'}
                      onChange={(e) =>
                        setDecisions((d) => ({
                          ...d,
                          [item.index]: e.currentTarget.value as Action,
                        }))
                      }
                    >
                      {ACTIONS.map((a) => (
                        <option key={a} value={a}>
                          {a}
                        </option>
                      ))}
                    </select>{' '}
                    {item.requiresConfirmation && !item.confirmed ? (
                      <Badge kind="pending">to confirm</Badge>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="actions" role="group" aria-label="Import steps">
            <button
              type="button"
              disabled={imp.state !== 'awaiting_confirmation' && imp.state !== 'ready'}
              onClick={() =>
                void act('Decisions confirmed', () =>
                  client.call('confirmImportItems', {
                    spaceId,
                    importId,
                    body: {
                      items: imp.items.map((item) => ({
                        index: item.index,
                        action: decisions[item.index] ?? item.action,
                        ...(item.existingEventIds.length > 0
                          ? { existingEventIds: item.existingEventIds }
                          : {}),
                      })),
                    },
                  }),
                )
              }
            >
              Confirm decisions
            </button>
            <button
              type="button"
              disabled={imp.state !== 'ready'}
              onClick={() =>
                void act('Committed', () =>
                  client.call('commitImport', {
                    spaceId,
                    importId,
                    body: { baseRevision: imp.baseRevision },
                  }),
                )
              }
            >
              Commit
            </button>
            <button
              type="button"
              class="danger"
              disabled={imp.state !== 'committed'}
              onClick={() =>
                void act('Undone', () => client.call('undoImport', { spaceId, importId }))
              }
            >
              Undo
            </button>
          </div>
          {note ? <p role="status">{note}</p> : null}
          {imp.commit ? (
            <p class="commit-result">
              {imp.state === 'undone' ? 'Undone; the commit had added' : 'Committed: added'}{' '}
              {imp.commit.addedEventIds.length} and changed {imp.commit.changedEventIds.length}{' '}
              events
              {imp.state === 'undone' ? '.' : ':'}{' '}
              {imp.state === 'undone'
                ? null
                : [...imp.commit.addedEventIds, ...imp.commit.changedEventIds].map((id, i) => (
                    <span key={id}>
                      {i > 0 ? ', ' : ''}
                      <Link href={pathOf('spaces', spaceId, 'events', id)}>{id}</Link>
                    </span>
                  ))}
            </p>
          ) : null}
        </section>
      )}
    </Show>
  );
}
