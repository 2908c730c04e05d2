// The package ships no types: one function, an English word (lower case) to its Porter2 stem.
declare module 'wink-porter2-stemmer' {
  export default function stem(word: string): string;
}
