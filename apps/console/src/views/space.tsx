import { isNotFound, useLoad } from '../api.ts';
import { pathOf } from '../router.ts';
import { Link, NotFound, Show } from '../ui.tsx';
import { ThreadView } from './thread.tsx';
import { EventsView, EventView } from './events.tsx';
import { GraphView } from './graph.tsx';
import { SearchView } from './search.tsx';
import { JobsView } from './jobs.tsx';
import { ImportsView } from './imports.tsx';
import { TopicsView, TopicView } from './topics.tsx';

const TABS = [
  ['', 'Threads'],
  ['events', 'Memory events'],
  ['topics', 'Topics'],
  ['graph', 'Graph'],
  ['search', 'Search'],
  ['jobs', 'Jobs'],
  ['imports', 'Imports'],
] as const;

/** One space: its status decides whether it exists for this key (another tenant's: not found). */
export function SpaceView(props: { spaceId: string; rest: string[] }) {
  const { spaceId, rest } = props;
  const status = useLoad((c) => c.call('getSpaceStatus', { spaceId }), [spaceId]);
  if (status.error && isNotFound(status.error)) {
    return <NotFound what={`The space “${spaceId}”`} />;
  }
  const [tab, id] = rest;
  const base = pathOf('spaces', spaceId);
  return (
    <>
      <h1>
        Space <code>{spaceId}</code>
      </h1>
      <nav class="tabs" aria-label="Space views">
        {TABS.map(([path, label]) => {
          const current = (tab ?? '') === path || (path === '' && tab === 'threads');
          return (
            <Link key={path} href={path ? `${base}/${path}` : base} current={current}>
              {label}
            </Link>
          );
        })}
      </nav>
      {status.data === undefined && !status.error ? (
        <p aria-live="polite">Loading the space…</p>
      ) : (
        subView(spaceId, tab, id)
      )}
    </>
  );
}

function subView(spaceId: string, tab: string | undefined, id: string | undefined) {
  switch (tab) {
    case undefined:
      return <ThreadsView spaceId={spaceId} />;
    case 'threads':
      return id ? (
        <ThreadView spaceId={spaceId} threadId={id} />
      ) : (
        <ThreadsView spaceId={spaceId} />
      );
    case 'events':
      return id ? <EventView spaceId={spaceId} eventId={id} /> : <EventsView spaceId={spaceId} />;
    case 'topics':
      return id ? <TopicView spaceId={spaceId} topicId={id} /> : <TopicsView spaceId={spaceId} />;
    case 'graph':
      return <GraphView spaceId={spaceId} />;
    case 'search':
      return <SearchView spaceId={spaceId} />;
    case 'jobs':
      return <JobsView spaceId={spaceId} />;
    case 'imports':
      return <ImportsView spaceId={spaceId} importId={id ?? null} />;
    default:
      return <NotFound what="This view" />;
  }
}

function ThreadsView(props: { spaceId: string }) {
  const { spaceId } = props;
  const threads = useLoad((c) => c.call('listThreads', { spaceId, limit: 200 }), [spaceId]);
  return (
    <section aria-labelledby="threads-title">
      <h2 id="threads-title">Threads</h2>
      <Show loaded={threads} what="the threads">
        {(page) =>
          page.threads.length === 0 ? (
            <p>No threads yet.</p>
          ) : (
            <table>
              <caption class="sr-only">Threads of {spaceId}</caption>
              <thead>
                <tr>
                  <th scope="col">Thread</th>
                  <th scope="col">Turns</th>
                  <th scope="col">Summarised blocks</th>
                </tr>
              </thead>
              <tbody>
                {page.threads.map((t) => (
                  <tr key={t.threadId}>
                    <td>
                      <Link href={pathOf('spaces', spaceId, 'threads', t.threadId)}>
                        {t.threadId}
                      </Link>
                    </td>
                    <td>{t.turnCount}</td>
                    <td>{t.readyBlocks}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}
