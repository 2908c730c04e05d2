import { useState } from 'preact/hooks';
import { describe, useLoad, useSession, type OperationOutput } from '../api.ts';
import { pathOf } from '../router.ts';
import { Alert, Badge, Field, Link, Show, Time } from '../ui.tsx';

type EventCard = OperationOutput<'listMemoryEvents'>['events'][number];
type Status = 'all' | 'active' | 'superseded' | 'forgotten' | 'archived';

const text = (value: unknown) => (typeof value === 'string' && value ? value : null);

/** When it was said and when it happened, as the extractor recorded them. */
function Times(props: { temporal: Record<string, unknown> }) {
  const t = props.temporal;
  const start = text(t.happenedStart);
  const end = text(t.happenedEnd);
  return (
    <dl class="times">
      <dt>Mentioned</dt>
      <dd>
        <Time at={text(t.mentionedAt)} />
      </dd>
      <dt>Happened</dt>
      <dd>
        {start ? <Time at={start} /> : <span class="muted">unknown</span>}
        {end && end !== start ? (
          <>
            {' '}
            to <Time at={end} />
          </>
        ) : null}
      </dd>
      <dt>Precision</dt>
      <dd>{text(t.precision) ?? '—'}</dd>
      <dt>Basis</dt>
      <dd>{text(t.basis) ?? '—'}</dd>
    </dl>
  );
}

const eventHref = (spaceId: string, id: string) => pathOf('spaces', spaceId, 'events', id);

function Chains(props: { spaceId: string; event: EventCard }) {
  const { spaceId, event } = props;
  const supersedes = Array.isArray(event.temporal.supersedesEventIds)
    ? (event.temporal.supersedesEventIds as string[])
    : [];
  if (!event.supersededBy && supersedes.length === 0 && event.conflictsWith.length === 0) {
    return null;
  }
  return (
    <ul class="chains">
      {event.supersededBy ? (
        <li>
          superseded by{' '}
          <Link href={eventHref(spaceId, event.supersededBy)}>{event.supersededBy}</Link>
        </li>
      ) : null}
      {supersedes.map((id) => (
        <li key={id}>
          supersedes <Link href={eventHref(spaceId, id)}>{id}</Link>
        </li>
      ))}
      {event.conflictsWith.map((id) => (
        <li key={id}>
          conflicts with <Link href={eventHref(spaceId, id)}>{id}</Link>
        </li>
      ))}
    </ul>
  );
}

/** The memory events of a space as a timeline, newest mention first. */
export function EventsView(props: { spaceId: string }) {
  const { spaceId } = props;
  const [status, setStatus] = useState<Status>('all');
  const events = useLoad(
    (c) => c.call('listMemoryEvents', { spaceId, status, limit: 200 }),
    [spaceId, status],
  );
  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">Memory events</h2>
      <Field label="Status" id="events-status">
        <select
          id="events-status"
          value={status}
          onChange={(e) => setStatus(e.currentTarget.value as Status)}
        >
          {(['all', 'active', 'superseded', 'forgotten', 'archived'] as const).map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </Field>
      <Show loaded={events} what="the memory events">
        {(page) => {
          const sorted = [...page.events].sort((a, b) =>
            String(b.temporal.mentionedAt ?? b.createdAt).localeCompare(
              String(a.temporal.mentionedAt ?? a.createdAt),
            ),
          );
          return sorted.length === 0 ? (
            <p>No memory events{status === 'all' ? '' : ` that are ${status}`}.</p>
          ) : (
            <ol class="timeline">
              {sorted.map((e) => (
                <li key={e.id} class={`event ${e.status}`}>
                  <h3>
                    <Link href={eventHref(spaceId, e.id)}>{e.title}</Link>{' '}
                    <Badge kind={e.status}>{e.status}</Badge>
                    {e.weight.pinned ? <Badge kind="pinned">pinned</Badge> : null}
                  </h3>
                  <p>{e.summary}</p>
                  <Times temporal={e.temporal} />
                  <p class="muted">
                    weight {e.weight.value.toFixed(2)} · mentioned {e.weight.mentionCount}× ·{' '}
                    {e.criticality} · {e.eventType} · {e.sourceMessageIds.length} source message
                    {e.sourceMessageIds.length === 1 ? '' : 's'}
                  </p>
                  <Chains spaceId={spaceId} event={e} />
                </li>
              ))}
            </ol>
          );
        }}
      </Show>
    </section>
  );
}

/** One event: its times, chains and weight, the raw messages it came from, pin/forget/restore. */
export function EventView(props: { spaceId: string; eventId: string }) {
  const { spaceId, eventId } = props;
  const { client } = useSession();
  const event = useLoad((c) => c.call('getMemoryEvent', { spaceId, eventId }), [spaceId, eventId]);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const change = async (what: 'pin' | 'unpin' | 'forget' | 'restore') => {
    setError(null);
    setMessage(null);
    try {
      await client.call('changeEventState', { spaceId, eventId, change: what });
      // The change is recorded; the read model shows it once projected.
      await client.waitUntilSettled(spaceId, { timeoutMs: 20_000 });
      setMessage(`Done: ${what}.`);
      event.reload();
    } catch (thrown) {
      setError(describe(thrown));
    }
  };
  return (
    <Show loaded={event} what={`The memory event “${eventId}”`}>
      {(e) => (
        <article aria-labelledby="event-title" class={`event ${e.status}`}>
          <h2 id="event-title">
            {e.title} <Badge kind={e.status}>{e.status}</Badge>
            {e.weight.pinned ? <Badge kind="pinned">pinned</Badge> : null}
          </h2>
          <p>{e.summary}</p>
          <div class="actions" role="group" aria-label="Change this memory">
            {e.weight.pinned ? (
              <button type="button" onClick={() => void change('unpin')}>
                Unpin
              </button>
            ) : (
              <button type="button" onClick={() => void change('pin')}>
                Pin
              </button>
            )}
            {e.status === 'forgotten' ? (
              <button type="button" onClick={() => void change('restore')}>
                Restore
              </button>
            ) : (
              <button type="button" class="danger" onClick={() => void change('forget')}>
                Forget
              </button>
            )}
          </div>
          {message ? <p role="status">{message}</p> : null}
          <Alert message={error} />
          <Times temporal={e.temporal} />
          <Chains spaceId={spaceId} event={e} />
          <h3>Weight</h3>
          <p>
            {e.weight.value.toFixed(3)} ({e.weight.meaning}); mentioned {e.weight.mentionCount}×,
            last adopted at turn {e.weight.lastAdoptedTurn}, last retrieved{' '}
            <Time at={e.weight.lastRetrievedAt} />.
          </p>
          <h3>Source messages</h3>
          {e.sources.length === 0 ? <p>No source messages (the agent wrote it directly).</p> : null}
          <ol class="messages sources">
            {e.sources.map((m) => (
              <li key={m.messageId} id={`message-${m.messageId}`}>
                <strong>{m.name ?? m.role}</strong> in{' '}
                <Link href={pathOf('spaces', spaceId, 'threads', m.threadId)}>{m.threadId}</Link>,
                turn {m.threadTurn}, <Time at={m.occurredAt} />
                <blockquote>{m.content}</blockquote>
              </li>
            ))}
          </ol>
          {e.quotes.length > 0 ? (
            <>
              <h3>Quotes</h3>
              <ul>
                {e.quotes.map((q) => (
                  <li key={q}>“{q}”</li>
                ))}
              </ul>
            </>
          ) : null}
          <p class="muted">
            {e.id} · formed at turn {e.formedTurn} · {e.pool} · {e.scope} · tags{' '}
            {e.tags.join(', ') || '—'}
          </p>
        </article>
      )}
    </Show>
  );
}
