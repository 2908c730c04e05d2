import type { BlockSummaryInput, SummaryMessage } from '../model-port.ts';

/** Test blocks shared by the provider specs. */
function block(
  blockId: string,
  turns: [string, string][],
  names?: [string, string],
): BlockSummaryInput {
  const messages: SummaryMessage[] = turns.flatMap(([user, assistant], i) => [
    msg(`${blockId}_u${i}`, 'user', user, i, names?.[0]),
    msg(`${blockId}_a${i}`, 'assistant', assistant, i, names?.[1]),
  ]);
  return { blockId, threadId: 'thread_1', messages };
}

function msg(
  messageId: string,
  role: SummaryMessage['role'],
  content: string,
  minute: number,
  name?: string,
): SummaryMessage {
  const occurredAt = `2024-05-06T10:${String(minute).padStart(2, '0')}:00Z`;
  return name === undefined
    ? { messageId, role, content, occurredAt }
    : { messageId, role, name, content, occurredAt };
}

export const ENGLISH_BLOCK = block('blk_en', [
  [
    'Ok, thanks. Our monorepo installs are really slow with npm, CI takes 9 minutes just to install dependencies.',
    'npm installs every workspace separately and its lockfile does not deduplicate well. pnpm uses a content-addressable store and symlinks, so installs are usually much faster.',
  ],
  [
    'Would pnpm work with our workspaces and the Docker build?',
    'Yes. pnpm supports workspaces through pnpm-workspace.yaml, and in Docker you can use pnpm fetch to cache the store layer.',
  ],
  [
    'We decided to switch the whole project from npm to pnpm. I prefer strict dependency resolution anyway.',
    'Good choice. You will need to delete package-lock.json and run pnpm import to create pnpm-lock.yaml.',
  ],
  [
    'Next week I will migrate the CI pipeline and update the README. The deadline is Friday.',
    'Sounds good. Remember to pin the pnpm version with the packageManager field so CI uses the same version.',
  ],
  ['ok thanks!', 'You are welcome! Let me know if anything else comes up.'],
]);

export const CHINESE_BLOCK = block(
  'blk_zh',
  [
    [
      '好的。李明说项目进度有点紧张，前端还有三个页面没有完成。',
      '明白。需要我帮你整理一下项目的剩余任务吗？',
    ],
    [
      '需要。我们决定下周三发布2.0版本，李明负责测试。',
      '好的：下周三发布2.0版本，李明负责测试。测试需要覆盖登录和支付流程。',
    ],
    [
      '我更喜欢先发布测试版，收集用户反馈以后再正式发布。',
      '可以先在周一发布测试版，给用户两天时间反馈。',
    ],
    ['谢谢！', '不客气。'],
  ],
  ['王芳', '助手'],
);

export const FILLER_BLOCK = block('blk_filler', [
  ['ok', 'thanks'],
  ['好的', '好的，谢谢！'],
  ['Hi!', 'Hello :)'],
]);
