/** A large paste for the benches: prose lines with names and dates, and a line of code in five. */
export function pastedText(chars: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i += 1) {
    const line =
      i % 5 === 0
        ? `const value${i} = compute(${i}); // step ${i}`
        : `Line ${i}: Priya moved the release ${i % 7} to January ${(i % 28) + 1}, and Tom handles infra for team ${i % 13}.`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}
