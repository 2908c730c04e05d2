import { useState } from 'preact/hooks';
import type { TargetedSubmitEvent } from 'preact';
import type { StrataGate } from '@stratagate/client';
import { describe, useLoad, useSession, type OperationOutput } from '../api.ts';
import { pathOf } from '../router.ts';
import { Alert, Badge, Field, Link, Show } from '../ui.tsx';

type Category = 'preferences' | 'decisions' | 'work' | 'relationships' | 'other';
type Expanded = OperationOutput<'expandTopic'>;
type Found = OperationOutput<'searchEvents'>;

const CATEGORIES: Category[] = ['preferences', 'decisions', 'work', 'relationships', 'other'];
const PAGE = 20;

const topicHref = (spaceId: string, topicId: string) =>
  pathOf('spaces', spaceId, 'topics', topicId);
const eventHref = (spaceId: string, id: string) => pathOf('spaces', spaceId, 'events', id);

/** The topic directory: chapters to find memories by; the events stay the evidence. */
export function TopicsView(props: { spaceId: string }) {
  const { spaceId } = props;
  const [query, setQuery] = useState('');
  const [category, setCategory] = useState<Category | ''>('');
  // What the list shows: the form's values once submitted, and the page's offset.
  const [shown, setShown] = useState<{ query: string; category: Category | ''; offset: number }>({
    query: '',
    category: '',
    offset: 0,
  });
  const page = useLoad(
    (c) =>
      c.call('listTopics', {
        spaceId,
        limit: PAGE,
        offset: shown.offset,
        ...(shown.query ? { query: shown.query } : {}),
        ...(shown.category ? { category: shown.category } : {}),
      }),
    [spaceId, shown.query, shown.category, shown.offset],
  );
  const submit = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setShown({ query: query.trim(), category, offset: 0 });
  };
  return (
    <section aria-labelledby="topics-title">
      <h2 id="topics-title">Topics</h2>
      <p class="muted">
        Chapters that group this space's memory events so they are easy to find. A topic is never
        evidence: open a chapter and search its events to cite them.
      </p>
      <form class="row" onSubmit={submit}>
        <Field label="Find topics">
          <input type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </Field>
        <Field label="Category" id="topic-category">
          <select
            id="topic-category"
            value={category}
            onChange={(e) => setCategory(e.currentTarget.value as Category | '')}
          >
            <option value="">all</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {c}
                {page.data ? ` (${page.data.categories[c]})` : ''}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit">Show</button>
      </form>
      <Show loaded={page} what="the topics">
        {(p) => (
          <>
            {p.topics.length === 0 ? (
              <p>No topics{shown.query || shown.category ? ' match' : ' yet'}.</p>
            ) : (
              <ol class="hits topics">
                {p.topics.map((topic) => (
                  <li key={topic.id}>
                    <p>
                      <strong>
                        <Link href={topicHref(spaceId, topic.id)}>
                          {topic.number}. {topic.title}
                        </Link>
                      </strong>{' '}
                      <Badge>{topic.category}</Badge>{' '}
                      {topic.isFallback ? <Badge kind="pending">single event</Badge> : null}{' '}
                      {topic.pendingUpdate ? <Badge kind="pending">update pending</Badge> : null}
                    </p>
                    <p>{topic.description}</p>
                    <p class="muted">
                      {topic.sourceEventCount} event{topic.sourceEventCount === 1 ? '' : 's'} ·{' '}
                      {topic.coverage.summarizedEvents} cited in its overview
                    </p>
                  </li>
                ))}
              </ol>
            )}
            <p class="muted">
              {p.total === 0
                ? ''
                : `Topics ${p.offset + 1}–${p.offset + p.topics.length} of ${p.total}.`}{' '}
              {p.offset > 0 ? (
                <button
                  type="button"
                  class="secondary"
                  onClick={() => setShown({ ...shown, offset: Math.max(0, p.offset - PAGE) })}
                >
                  Previous page
                </button>
              ) : null}{' '}
              {p.nextOffset !== null ? (
                <button
                  type="button"
                  class="secondary"
                  onClick={() => setShown({ ...shown, offset: p.nextOffset! })}
                >
                  Next page
                </button>
              ) : null}
            </p>
          </>
        )}
      </Show>
    </section>
  );
}

/** A chapter with the titles of the events it names (one call per event, at most 60). */
async function chapter(client: StrataGate, spaceId: string, topicId: string) {
  const expanded = await client.call('expandTopic', { spaceId, topicId });
  const { topic } = expanded;
  const ids = [
    ...new Set([
      ...topic.sections.flatMap((s) => s.sourceEventIds),
      ...topic.overview.groups.flatMap((g) => g.paragraphs.flatMap((p) => p.sourceEventIds)),
      ...topic.sourceEventIds,
    ]),
  ].slice(0, 60);
  const found = await Promise.allSettled(
    ids.map((eventId) => client.call('getMemoryEvent', { spaceId, eventId })),
  );
  const titles = new Map<string, string>();
  found.forEach((f, i) => {
    if (f.status === 'fulfilled') titles.set(ids[i]!, f.value.title);
  });
  return { expanded, titles };
}

function EventLinks(props: { spaceId: string; ids: string[]; titles: Map<string, string> }) {
  return (
    <ul class="members">
      {props.ids.map((id) => (
        <li key={id}>
          <Link href={eventHref(props.spaceId, id)}>{props.titles.get(id) ?? id}</Link>
        </li>
      ))}
    </ul>
  );
}

/** One chapter: its overview and sections, each naming its member events. */
export function TopicView(props: { spaceId: string; topicId: string }) {
  const { spaceId, topicId } = props;
  const loaded = useLoad((c) => chapter(c, spaceId, topicId), [spaceId, topicId]);
  return (
    <section aria-labelledby="topic-title">
      <p>
        <Link href={pathOf('spaces', spaceId, 'topics')}>All topics</Link>
      </p>
      <Show loaded={loaded} what={`The topic “${topicId}”`}>
        {({ expanded, titles }) => <Chapter spaceId={spaceId} t={expanded} titles={titles} />}
      </Show>
    </section>
  );
}

function Chapter(props: { spaceId: string; t: Expanded; titles: Map<string, string> }) {
  const { spaceId, titles } = props;
  const { topic } = props.t;
  return (
    <>
      <h2 id="topic-title">
        {topic.number}. {topic.title} <Badge>{topic.category}</Badge>{' '}
        {topic.isFallback ? <Badge kind="pending">single event</Badge> : null}{' '}
        {topic.pendingUpdate ? <Badge kind="pending">update pending</Badge> : null}
      </h2>
      <p>{topic.description}</p>
      <p class="muted">
        {topic.totalSourceEvents} member event{topic.totalSourceEvents === 1 ? '' : 's'} ·{' '}
        {topic.coverage.summarizedEvents} cited in the overview · {topic.tokens} of {topic.budget}{' '}
        tokens
      </p>
      {topic.overview.groups.length > 0 ? (
        <>
          <h3>{topic.overview.number} Overview</h3>
          {topic.overview.groups.map((g) => (
            <div key={g.kind} class="overview-group">
              <h4>{g.title}</h4>
              {g.paragraphs.map((p, i) => (
                <div key={i} class="paragraph">
                  <p>
                    {p.title ? <strong>{p.title}: </strong> : null}
                    {p.text}
                  </p>
                  <p class="muted">Cites:</p>
                  <EventLinks spaceId={spaceId} ids={p.sourceEventIds} titles={titles} />
                </div>
              ))}
            </div>
          ))}
          {topic.omittedOverviewParagraphs > 0 ? (
            <p class="muted">
              {topic.omittedOverviewParagraphs} more paragraphs left out to keep the chapter short.
            </p>
          ) : null}
        </>
      ) : null}
      {topic.sections.length > 0 ? (
        <ol class="sections">
          {topic.sections.map((s) => (
            <li key={s.number}>
              <h3>
                {s.number} {s.title}
              </h3>
              <EventLinks spaceId={spaceId} ids={s.sourceEventIds} titles={titles} />
              {s.totalSourceEvents > s.sourceEventIds.length ? (
                <p class="muted">
                  {s.totalSourceEvents - s.sourceEventIds.length} more: search this topic's events
                  below.
                </p>
              ) : null}
            </li>
          ))}
        </ol>
      ) : (
        <>
          <h3>Member events</h3>
          <EventLinks spaceId={spaceId} ids={topic.sourceEventIds} titles={titles} />
        </>
      )}
      {topic.omittedSections > 0 ? (
        <p class="muted">{topic.omittedSections} more sections left out.</p>
      ) : null}
      <TopicSearch spaceId={spaceId} topicId={topic.topicId} />
    </>
  );
}

/** The topic-scoped event search, as an agent runs it after reading a chapter. */
function TopicSearch(props: { spaceId: string; topicId: string }) {
  const { spaceId, topicId } = props;
  const { client } = useSession();
  const [threadId, setThreadId] = useState('console');
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Found | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const search = async (offset: number) => {
    setBusy(true);
    setError(null);
    try {
      setFound(
        await client.call('searchEvents', {
          spaceId,
          threadId,
          body: { topicId, query: query.trim(), offset, limit: 10 },
        }),
      );
    } catch (thrown) {
      setError(describe(thrown));
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    void search(0);
  };
  const scope = found?.topic;
  return (
    <section aria-labelledby="topic-search-title" class="topic-search">
      <h3 id="topic-search-title">Search this topic's events</h3>
      <p class="muted">
        Searches only this chapter's member events (with no words, earliest first). It is a real
        retrieval in the thread you name: it opens an evidence batch, as an agent's search does;
        assess and adopt it from the Search view.
      </p>
      <form class="row" onSubmit={submit}>
        <Field label="Thread">
          <input value={threadId} onInput={(e) => setThreadId(e.currentTarget.value)} required />
        </Field>
        <Field label="Words (optional)">
          <input type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Searching…' : "Search this topic's events"}
        </button>
      </form>
      <Alert message={error} />
      {found ? (
        <div class="topic-batch">
          <h4>
            Batch <code>{found.batchId}</code>
          </h4>
          {scope ? (
            <p class="muted">
              {found.hits.length === 0
                ? 'No member events on this page'
                : `Member events ${scope.offset + 1}–${scope.offset + found.hits.length}`}{' '}
              of {scope.totalSourceEvents}.{' '}
              {scope.nextOffset !== null ? (
                <button
                  type="button"
                  class="secondary"
                  disabled={busy}
                  onClick={() => void search(scope.nextOffset!)}
                >
                  Next events (new batch)
                </button>
              ) : null}
            </p>
          ) : null}
          <ol class="hits">
            {found.hits.map((h) => (
              <li key={h.ref}>
                <p>
                  <Link href={eventHref(spaceId, h.id)}>
                    <strong>{h.title}</strong>
                  </Link>{' '}
                  <code>{h.ref}</code>
                </p>
                <p>{h.summary}</p>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </section>
  );
}
