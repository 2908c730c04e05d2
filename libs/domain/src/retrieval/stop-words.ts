import * as stopwordLists from 'stopword';

/**
 * The Snowball project's English stop word list (snowballstem.org, `english.stop`), without its
 * contracted forms: `tokenize` cuts clitics off, so "don't" arrives as "do", which is listed.
 * Questions are made of these ("does", "during", "us", "when", "she"), and the `stopword`
 * package's shorter list missed many of them.
 */
const SNOWBALL_ENGLISH = `i me my myself we our ours ourselves you your yours yourself yourselves
he him his himself she her hers herself it its itself they them their theirs themselves what which
who whom this that these those am is are was were be been being have has had having do does did
doing would should could ought a an the and but if or because as until while of at by for with
about against between into through during before after above below to from up down in out on off
over under again further then once here there when where why how all any both each few more most
other some such no nor not only own same so than too very will shall can cannot`;

/**
 * English function words a query is searched without: the Snowball list and the `stopword`
 * package's English list together. Documents keep them; only queries drop them.
 */
export const QUERY_STOP_WORDS: ReadonlySet<string> = new Set([
  ...SNOWBALL_ENGLISH.split(/\s+/).filter((w) => w.length > 0),
  ...stopwordLists.eng,
]);
