/**
 * Counts turns of the event loop (a setImmediate chain) from now until `stop`: a test's way to
 * see whether other work let the loop turn while it ran.
 */
export function turnCounter(): { readonly turns: number; stop(): void } {
  let turns = 0;
  let done = false;
  const spin = () => {
    if (done) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  return {
    get turns() {
      return turns;
    },
    stop() {
      done = true;
    },
  };
}
