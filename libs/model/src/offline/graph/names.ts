import { ENGLISH_STOP_WORDS } from '../stop-words.ts';
import { hasHan } from '../words.ts';

/**
 * Name shapes and the small lexicon the offline graph proposer trusts. Names are only ever
 * copied from event text; these helpers decide which copied words look like which kind of name.
 */

/** MM-GRF-6: case-folded, with spaces, `_` and `-` removed (as the consolidator folds names). */
export function normaliseName(name: string): string {
  return name
    .normalize('NFKC')
    .toLocaleLowerCase('und')
    .normalize('NFKC')
    .replace(/[\s_-]+/gu, '');
}

/** Project names drop a "project"/"项目" prefix or suffix so "Project X", "X" and "x" match. */
export function projectKey(name: string): string {
  const key = normaliseName(name);
  const bare = key.replace(/^(?:project|项目)/u, '').replace(/(?:project|项目)$/u, '');
  return bare === '' ? key : bare;
}

/** A capitalised word; inner dots and hyphens keep "Node.js" and "Coca-Cola" whole. */
const CAP_WORD = String.raw`\p{Lu}[\p{L}\p{N}&'’]*(?:[.-][\p{L}\p{N}]+)*`;
/** Up to four capitalised words ("New York", "Bank of America", "Alpha Corp"). */
export const CAP_NAME = String.raw`${CAP_WORD}(?:\s+(?:of\s+|&\s+)?${CAP_WORD}){0,3}`;
/** A tool-like token: "npm", "Node.js", "C++", "k8s", "vue-router". */
export const TOOL_TOKEN = String.raw`[A-Za-z][A-Za-z0-9]*(?:[.+#-][A-Za-z0-9]+|\+\+|#)*`;
/** A project name after "project": capitalised or numbered ("project X", "Project Phoenix 2"). */
export const PROJECT_TOKEN = String.raw`[\p{Lu}\p{N}][\p{L}\p{N}_-]*`;

const CAP_NAME_AT_START = new RegExp(String.raw`^(?:the\s+)?(${CAP_NAME})`, 'u');
const TOOL_AT_START = new RegExp(String.raw`^(?:the\s+)?(${TOOL_TOKEN})`, 'u');

/** The capitalised name a cue is followed by, without trailing stop words ("Berlin Today"). */
export function leadingCapName(rest: string): string | undefined {
  const words = (CAP_NAME_AT_START.exec(rest)?.[1] ?? '').split(/\s+/u);
  while (words.length > 0 && ENGLISH_STOP_WORDS.has((words.at(-1) ?? '').toLowerCase())) {
    words.pop();
  }
  const name = words.join(' ').replace(/['’.-]+$/u, '');
  return name === '' || ENGLISH_STOP_WORDS.has(name.toLowerCase()) ? undefined : name;
}

export function leadingToolToken(rest: string): string | undefined {
  return TOOL_AT_START.exec(rest)?.[1];
}

/** Tools recognised even in lower case and after ambiguous cues ("moved to pnpm"). */
const TOOL_WORDS = new Set(
  `npm pnpm yarn bun deno node nodejs docker podman kubernetes k8s helm terraform ansible git
  github gitlab bitbucket jenkins circleci ci travis postgres postgresql mysql mariadb sqlite redis
  mongodb kafka rabbitmq elasticsearch nginx react vue angular svelte nextjs next.js nuxt vite
  webpack rollup esbuild babel typescript javascript python rust golang java kotlin swift ruby
  rails django flask fastapi fastify express nestjs jest vitest mocha playwright cypress eslint
  prettier biome vim neovim vscode emacs intellij xcode aws gcp azure vercel netlify heroku
  cloudflare linux ubuntu debian macos windows excel notion jira confluence slack figma trello
  zoom chatgpt pglite kysely prisma drizzle graphql grpc tailwind pandas numpy pytorch tensorflow
  ollama vllm lerna nx turborepo pip poetry conda maven gradle cargo homebrew`
    .trim()
    .split(/\s+/u),
);

export function isKnownTool(token: string): boolean {
  return TOOL_WORDS.has(token.toLowerCase());
}

/** Looks like software: digits with letters, dots or plus signs inside, CamelCase, or an acronym. */
export function isTechShaped(token: string): boolean {
  return (
    (/\d/u.test(token) && /[A-Za-z]{2}/u.test(token)) ||
    /[A-Za-z][.+#]/u.test(token) ||
    /\p{Ll}\p{Lu}/u.test(token) ||
    /^\p{Lu}{2,6}$/u.test(token)
  );
}

/**
 * Whether a token after a usage cue names a tool. `strict` (for cues that also take places,
 * like "moved to") accepts only the lexicon and software-shaped tokens; otherwise a
 * capitalised word ("switched to Docker") counts too. Plain lower-case words never do
 * ("uses tabs", "using less").
 */
export function isToolName(token: string, strict: boolean): boolean {
  if (ENGLISH_STOP_WORDS.has(token.toLowerCase()) || Array.from(token).length < 2) return false;
  if (isKnownTool(token) || isTechShaped(token)) return true;
  return !strict && /^\p{Lu}/u.test(token);
}

/** Labels extraction uses for unnamed speakers; they are roles, not people (MM-GRF-1). */
const GENERIC_PARTICIPANT =
  /^(?:user|the user|assistant|the assistant|ai|bot|agent|model|system|me|i|we|you|someone|somebody|unknown|n\/a|用户|助手|助理|我|我们|你|你们|某人)$/iu;

export function isNamedPerson(name: string): boolean {
  return !GENERIC_PARTICIPANT.test(name.trim()) && /[\p{L}\p{N}]/u.test(name);
}

/** Whether `text` ends with `name` as a whole word (Han names need no word break). */
export function endsWithName(text: string, name: string): boolean {
  const t = text.trimEnd().toLowerCase();
  const n = name.trim().toLowerCase();
  if (n === '' || !t.endsWith(n)) return false;
  if (hasHan(n)) return true;
  return !/[\p{L}\p{N}]/u.test(t.charAt(t.length - n.length - 1));
}
