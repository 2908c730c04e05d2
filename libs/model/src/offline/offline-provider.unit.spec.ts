import { describe, expect, it } from 'vitest';
import { ModelError, type BlockSummaryInput, type SummaryMessage } from '../model-port.ts';
import { validateBlockSummary } from '../summary.schema.ts';
import { codePointLength } from '../text.ts';
import { createOfflineProvider } from './offline-provider.ts';
import { CHINESE_BLOCK, ENGLISH_BLOCK, FILLER_BLOCK } from './test-blocks.ts';

const provider = createOfflineProvider();
const summarize = async (input: BlockSummaryInput) => (await provider.summarizeBlock(input)).output;
const allContent = (input: BlockSummaryInput) => input.messages.map((m) => m.content).join('\n');

function message(
  role: SummaryMessage['role'],
  content: string,
  extra: Partial<SummaryMessage> = {},
) {
  return {
    messageId: `m_${content.length}`,
    role,
    content,
    occurredAt: '2024-05-06T10:00:00Z',
    ...extra,
  };
}

describe('offline heuristic provider', () => {
  it('names itself and its version', async () => {
    const result = await provider.summarizeBlock(ENGLISH_BLOCK);
    expect(provider.name).toBe('offline-heuristic');
    expect(result).toMatchObject({
      provider: 'offline-heuristic',
      promptVersion: 'offline-summary@1',
    });
  });

  it('is deterministic: the same block twice gives byte-identical output', async () => {
    for (const block of [ENGLISH_BLOCK, CHINESE_BLOCK, FILLER_BLOCK]) {
      const first = await summarize(block);
      const again = await createOfflineProvider().summarizeBlock(structuredClone(block));
      expect(JSON.stringify(again.output)).toBe(JSON.stringify(first));
    }
  });

  it('summarises an English block from its content', async () => {
    const out = await summarize(ENGLISH_BLOCK);
    expect(validateBlockSummary(out)).toEqual(out);
    expect(out.title).toBe('We decided to switch the whole project from npm to pnpm');
    expect(out.tags[0]).toBe('pnpm');
    expect(out.tags).toContain('npm');
    expect(out.keyPoints).toContain('We decided to switch the whole project from npm to pnpm.');
    expect(out.keyPoints).toContain(
      'Next week I will migrate the CI pipeline and update the README.',
    );
    expect(out.keyPoints).toContain('I prefer strict dependency resolution anyway.');
    expect(out.keyPoints).toContain('The deadline is Friday.');
    // Fillers, greetings and courtesy never become points.
    expect(out.keyPoints.join('\n')).not.toMatch(/thanks|Let me know|Good choice/iu);
    expect(out.summary).toContain('We decided to switch the whole project from npm to pnpm.');
    expect(out.shouldExtract).toBe(true);
  });

  it('summarises a Chinese block with Chinese tags and points', async () => {
    const out = await summarize(CHINESE_BLOCK);
    expect(out.title).toBe('我们决定下周三发布2.0版本，李明负责测试');
    expect(out.tags).toEqual(expect.arrayContaining(['发布', '李明', '项目']));
    expect(out.tags.every((t) => /\p{Script=Han}/u.test(t))).toBe(true);
    expect(out.keyPoints).toContain('王芳: 我们决定下周三发布2.0版本，李明负责测试。');
    expect(out.keyPoints).toContain('王芳: 我更喜欢先发布测试版，收集用户反馈以后再正式发布。');
    // The assistant's echo of the decision is the same statement, so it appears once.
    expect(out.keyPoints.filter((p) => p.includes('下周三发布2.0版本'))).toHaveLength(1);
    expect(out.keyPoints.join('')).not.toMatch(/谢谢|不客气/u);
    expect(out.shouldExtract).toBe(true);
  });

  it('labels speakers only when several named people talk', async () => {
    const named = await summarize(CHINESE_BLOCK);
    expect(named.summary).toMatch(/^王芳: /u);
    const unnamed = await summarize(ENGLISH_BLOCK);
    expect(unnamed.summary).not.toMatch(/^(user|assistant): /iu);
  });

  it('marks a filler-only block as not worth extracting, still with valid layers', async () => {
    const out = await summarize(FILLER_BLOCK);
    expect(validateBlockSummary(out)).toEqual(out);
    expect(out.shouldExtract).toBe(false);
    expect(out.tags).toEqual(['user', 'assistant']);
    expect(allContent(FILLER_BLOCK)).toContain(out.summary);
    expect(out.keyPoints).toEqual([out.summary]);
  });

  it('turns tool traces into short tool points without their arguments', async () => {
    const out = await summarize({
      blockId: 'blk_tool',
      threadId: 'thr_1',
      messages: [
        message('user', 'Search my calendar for the dentist appointment.'),
        message('assistant', '', {
          toolCalls: [
            {
              name: 'calendar_search',
              arguments: { query: 'secret-argument' },
              result: { events: [{ title: 'Dentist' }] },
            },
          ],
        }),
        message('assistant', 'Your dentist appointment is on June 3 at 9:00.'),
      ],
    });
    expect(out.keyPoints).toContain('Tool calendar_search: events: 1');
    expect(JSON.stringify(out)).not.toContain('secret-argument');
    expect(out.shouldExtract).toBe(true);
  });

  it('does not extract from tool noise alone', async () => {
    const out = await summarize({
      blockId: 'blk_noise',
      threadId: 'thr_1',
      messages: [
        message('assistant', '', { toolCalls: [{ name: 'fetch', result: { error: 'timeout' } }] }),
        message('tool', '{"ok":true}', { name: 'fetch' }),
      ],
    });
    expect(out).toMatchObject({
      title: 'Tool fetch: failed: timeout',
      keyPoints: ['Tool fetch: failed: timeout', 'Tool fetch: completed'],
      shouldExtract: false,
    });
    expect(out.tags).toEqual(['fetch', 'assistant']);
  });

  it('never fails a block that has no text at all', async () => {
    const out = await summarize({
      blockId: 'blk_empty',
      threadId: 'thr_1',
      messages: [message('user', '  '), message('assistant', '')],
    });
    expect(out).toMatchObject({ title: 'Empty block', shouldExtract: false });
    expect(out.tags).toHaveLength(2);
  });

  it('stays fast on 12 turns of multi-KB messages', async () => {
    const en =
      'We decided to move the build to pnpm next week because CI installs take 9 minutes. ';
    const zh = '我们决定下周把构建迁移到pnpm，李明负责测试和发布。';
    const messages = Array.from({ length: 12 }, (_, i) => [
      message('user', `${(en + zh).repeat(60)} Turn ${i} adds fact ${i}.`),
      message('assistant', `Noted. ${en.repeat(120)}`, {
        toolCalls: [
          { name: 'run', arguments: { command: 'x'.repeat(5000) }, result: 'y'.repeat(20000) },
        ],
      }),
    ]).flat();
    const started = performance.now();
    const out = await summarize({ blockId: 'blk_big', threadId: 'thr_1', messages });
    // A few hundred ms here; the bound catches work that grows with the square of the input.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(codePointLength(out.title)).toBeLessThanOrEqual(60);
    expect(out.keyPoints.length).toBeGreaterThanOrEqual(3);
  });

  it('rejects an already aborted call with a transient model error', async () => {
    const controller = new AbortController();
    controller.abort();
    const call = provider.summarizeBlock(ENGLISH_BLOCK, { signal: controller.signal });
    await expect(call).rejects.toBeInstanceOf(ModelError);
    await expect(call).rejects.toMatchObject({ code: 'aborted', transient: true });
  });
});
