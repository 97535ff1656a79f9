/**
 * The README's error table, generated from the message catalogue (`Messages` in
 * @keyhold/protocol): one row per entry — errorCode, HTTP status, status code, message.
 *
 *   tsx scripts/error-table.ts          rewrite the table in README.md
 *   tsx scripts/error-table.ts --check  exit 1 when README.md's table is not the catalogue's
 *
 * `pnpm test` runs the check first (`pnpm errors:check`), so a catalogue change without the
 * regenerated table fails CI.
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Messages } from '../packages/protocol/src/messages.js';
import { httpStatusOf, StatusCode } from '../packages/protocol/src/status-code.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const START =
  '<!-- error-table:start (generated from Messages by scripts/error-table.ts; edit the catalogue, then run `pnpm errors:table`) -->';
const END = '<!-- error-table:end -->';

const CODE_NAMES = new Map<number, string>(
  Object.entries(StatusCode).map(([name, code]) => [code, name]),
);

/** A Markdown table cell: pipes escaped, code spans kept. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** The table, padded like the README's other tables. */
export function errorTable(): string {
  const header = ['errorCode', 'HTTP', 'Code', 'Message'];
  const rows: string[][] = Object.values(Messages).map((entry) => [
    `\`${entry.errorCode}\``,
    String(entry.http ?? httpStatusOf(entry.code)),
    `${entry.code} ${CODE_NAMES.get(entry.code)}`,
    cell(entry.message),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [
    line(header),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...rows.map(line),
  ].join('\n');
}

/** README.md with its table replaced by `table`; throws when the markers are missing. */
function withTable(readme: string, table: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) {
    throw new Error(`README.md has no error table markers (${START} … ${END})`);
  }
  return `${readme.slice(0, start + START.length)}\n\n${table}\n\n${readme.slice(end)}`;
}

const readme = readFileSync(README, 'utf8');
const expected = withTable(readme, errorTable());
if (process.argv.includes('--check')) {
  if (expected !== readme) {
    console.error(
      'README.md: the error table is not the catalogue’s. Run `pnpm errors:table` and commit README.md.',
    );
    process.exit(1);
  }
  console.log(`README.md error table: ${Object.keys(Messages).length} entries, up to date`);
} else if (expected !== readme) {
  writeFileSync(README, expected);
  console.log(`README.md error table rewritten: ${Object.keys(Messages).length} entries`);
} else {
  console.log('README.md error table already up to date');
}
