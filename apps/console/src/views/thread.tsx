import { useState } from 'preact/hooks';
import { describe, useLoad, useSession, type OperationOutput } from '../api.ts';
import { pathOf } from '../router.ts';
import { Alert, Badge, Link, Show, Time } from '../ui.tsx';

type Block = OperationOutput<'getThreadContext'>['blocks'][number];

const LEVELS = [0, 1, 2, 3, 4, 5] as const;
const LEVEL_MEANING = ['gist', 'headline', 'key points', 'summary', 'detailed', 'raw messages'];

/**
 * A thread as the agent's context sees it: each ready block at the level it has faded to, the
 * blocks still being summarised, and the open tail of turns not yet in a block.
 */
export function ThreadView(props: { spaceId: string; threadId: string }) {
  const { spaceId, threadId } = props;
  const context = useLoad(
    (c) => c.call('getThreadContext', { spaceId, threadId }),
    [spaceId, threadId],
  );
  return (
    <section aria-labelledby="thread-title">
      <h2 id="thread-title">
        Thread <code>{threadId}</code>
      </h2>
      <p class="muted">
        Blocks fade with age from L5 (the raw messages) down to L0. Expanding a block lifts it to
        the level you pick, and its fading starts over from there.
      </p>
      <Show loaded={context} what={`The thread “${threadId}”`}>
        {(ctx) => (
          <>
            {ctx.blocks.length === 0 ? <p>No summarised blocks in this thread yet.</p> : null}
            <ol class="blocks">
              {ctx.blocks.map((block) => (
                <li key={block.id}>
                  <BlockCard
                    spaceId={spaceId}
                    threadId={threadId}
                    block={block}
                    onLifted={context.reload}
                  />
                </li>
              ))}
            </ol>
            {ctx.pendingBlocks.length > 0 ? (
              <>
                <h3>Blocks being summarised</h3>
                <ul>
                  {ctx.pendingBlocks.map((b) => (
                    <li key={b.id}>
                      turns {b.turnRange.join('–')}: summary{' '}
                      <Badge kind={b.summaryStatus}>{b.summaryStatus}</Badge>{' '}
                      {b.summaryStatus === 'failed' ? (
                        <Link href={pathOf('spaces', spaceId, 'jobs')}>see jobs to retry</Link>
                      ) : null}
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
            <h3>Open tail ({ctx.openTail.turns} turns not in a block yet)</h3>
            <ul class="messages">
              {ctx.openTail.messages.map((m) => (
                <li key={m.messageId} id={`message-${m.messageId}`}>
                  <strong>{m.name ?? m.role}</strong> <Time at={m.occurredAt} />
                  <p>{m.content}</p>
                </li>
              ))}
            </ul>
          </>
        )}
      </Show>
    </section>
  );
}

function BlockCard(props: { spaceId: string; threadId: string; block: Block; onLifted(): void }) {
  const { client } = useSession();
  const { spaceId, threadId, block } = props;
  const [shown, setShown] = useState<{ level: number; content: string; from?: number } | null>(
    null,
  );
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const lift = async (level: number) => {
    setBusy(true);
    setError(null);
    try {
      const lifted = await client.call('expandBlock', {
        spaceId,
        blockId: block.id,
        body: { target: `L${level}` as 'L0', source: 'user', threadId },
      });
      setShown({ level: lifted.level, content: lifted.content, from: lifted.fromLevel });
      props.onLifted();
    } catch (thrown) {
      setError(describe(thrown));
    } finally {
      setBusy(false);
    }
  };
  const level = shown?.level ?? block.level;
  const titleId = `block-${block.id}`;
  return (
    <article class="block" aria-labelledby={titleId}>
      <header>
        <h3 id={titleId}>
          Turns {block.turnRange.join('–')} <Badge kind="level">{block.label}</Badge>
        </h3>
        <span class="muted">
          age {block.age} · weight {block.weight.toFixed(2)} · {block.tokens} tokens · lifted{' '}
          {block.lastLiftedAt ? (
            <>
              <Time at={block.lastLiftedAt} /> by {block.lastLiftedBy}
            </>
          ) : (
            'never'
          )}
        </span>
      </header>
      <div
        class="ladder"
        role="group"
        aria-label={`Expand turns ${block.turnRange.join('–')} to a level`}
      >
        {LEVELS.map((l) => (
          <button
            type="button"
            key={l}
            class={l === level ? 'rung current' : 'rung'}
            aria-pressed={l === level}
            title={`L${l}: ${LEVEL_MEANING[l]}`}
            disabled={busy}
            onClick={() => void lift(l)}
          >
            L{l}
          </button>
        ))}
      </div>
      {shown ? (
        <p class="notice" role="status">
          Expanded from L{shown.from} to L{shown.level}; its fading starts over now.
        </p>
      ) : null}
      <Alert message={error} />
      <pre class="content">{shown?.content ?? block.content}</pre>
    </article>
  );
}
