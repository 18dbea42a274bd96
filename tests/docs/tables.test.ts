// Every table in docs/ renders as written: one header, one separator row, then body rows with as
// many cells as the header (GitHub renders a second separator row as a row of dashes).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DOCS = join(__dirname, '..', '..', 'docs');
const SEPARATOR = /^\|(\s*:?-+:?\s*\|)+\s*$/;

/** Each table's problems, as `file:line: problem`. */
function tableProblems(file: string): string[] {
  const lines = readFileSync(join(DOCS, file), 'utf8').split('\n');
  const problems: string[] = [];
  let header: number | undefined;
  lines.forEach((line, index) => {
    if (!line.startsWith('|')) {
      header = undefined;
      return;
    }
    const cells = line.split(/(?<!\\)\|/).length;
    if (header === undefined) {
      header = cells;
      if (!SEPARATOR.test(lines[index + 1] ?? ''))
        problems.push(`${file}:${index + 1}: a table without its separator row`);
      return;
    }
    if (SEPARATOR.test(line) && SEPARATOR.test(lines[index - 1] ?? ''))
      problems.push(`${file}:${index + 1}: a second separator row`);
    else if (cells !== header)
      problems.push(`${file}:${index + 1}: ${cells - 2} cells, the header has ${header - 2}`);
  });
  return problems;
}

it('has no stray table rows in docs/', () => {
  const files = readdirSync(DOCS).filter((name) => name.endsWith('.md'));
  expect(files.length).toBeGreaterThan(5);
  expect(files.flatMap(tableProblems)).toEqual([]);
});
