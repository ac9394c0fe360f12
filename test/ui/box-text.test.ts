import {describe, expect, test} from 'vitest';
import {boxTextWidth, confirmRows, helpRows, wrapLine, wrapLines} from '../../src/ui/box-text.js';

// A box's text as rows: wrapped at blanks to the text width, never cut, continuation rows indented; the help's
// descriptions in a column of their own; the confirm box's body scrolling when the screen is too short for it.

const REFUSAL =
	'rank 3  pid 4321  NO HANDLER: SIGUSR1 would terminate it — will be refused (the TUI never forces; traintop signal --force does)';

/** The rows read back as the line: joined at their breaks, blanks collapsed. */
const reread = (rows: readonly string[]): string => rows.join(' ').replace(/\s+/g, ' ').trim();

describe('wrapLine', () => {
	test('a line that fits is one row, as it is (its inner blanks kept)', () => {
		expect(wrapLine('rank 0  pid 12  handles SIGUSR1', 40)).toEqual(['rank 0  pid 12  handles SIGUSR1']);
	});

	test('at each width from 12 to 130: no row wider, nothing lost, breaks at blanks', () => {
		// From 12 columns every word of it fits on a row with the indent: none is broken.
		for (let width = 12; width <= 130; width++) {
			const rows = wrapLine(REFUSAL, width, '  ');
			for (const row of rows) expect([...row].length, `${width}: "${row}"`).toBeLessThanOrEqual(width);
			expect(reread(rows)).toBe(REFUSAL.replace(/\s+/g, ' '));
			// Every word of the line is on a row whole.
			for (const word of REFUSAL.split(/\s+/))
				expect(
					rows.some(row => row.includes(word)),
					word,
				).toBe(true);
		}
	});

	test('continuation rows start with the indent; the first keeps its own leading blanks', () => {
		expect(wrapLine('  alpha beta gamma delta', 12, '    ')).toEqual(['  alpha beta', '    gamma', '    delta']);
	});

	test('a word longer than a row is broken across rows, the rows full', () => {
		expect(wrapLine('path /a/very/long/path/name end', 10, '  ')).toEqual([
			'path',
			'  /a/very/',
			'  long/pat',
			'  h/name',
			'  end',
		]);
	});

	test('an indent that would take more than half the row is dropped', () => {
		expect(wrapLine('aaaa bbbb cccc', 8, '      ')).toEqual(['aaaa', 'bbbb', 'cccc']);
	});

	test('an empty line is one empty row', () => {
		expect(wrapLine('', 10)).toEqual(['']);
	});
});

describe('wrapLines', () => {
	test('each line hangs its continuation rows two columns under its own text', () => {
		expect(wrapLines(['one two three four', '  five six seven eight'], 12)).toEqual([
			'one two',
			'  three four',
			'  five six',
			'    seven',
			'    eight',
		]);
	});
});

describe('helpRows', () => {
	test('keys in one column, each description wrapped in the column beside them', () => {
		const rows = helpRows(
			[
				{keys: 's', description: "save: send the save signal to the cursor's job, after a confirm"},
				{keys: 'Enter', description: 'open the detail; in a confirm: press the highlighted button'},
			],
			['USR1✓ handles it · USR1✗ no handler'],
			30,
		);
		expect(rows).toEqual([
			's      save: send the save',
			"       signal to the cursor's",
			'       job, after a confirm',
			'Enter  open the detail; in a',
			'       confirm: press the',
			'       highlighted button',
			'USR1✓ handles it · USR1✗ no',
			'  handler',
		]);
	});
});

describe('confirmRows', () => {
	const lines = ['all 4 ranks · run dir /tmp/run', REFUSAL];

	test('80×24: the refusal line whole, on rows no wider than the box text; every row in sight', () => {
		const rows = confirmRows('Send SIGUSR1 (save) to job launcher.py:4242?', lines, 80, 24);
		expect(boxTextWidth(80, 24)).toBe(72);
		expect(rows.title).toEqual(['Send SIGUSR1 (save) to job launcher.py:4242?']);
		expect(rows.body.length).toBe(3);
		for (const row of rows.body) expect([...row].length).toBeLessThanOrEqual(72);
		expect(reread(rows.body.slice(1))).toBe(REFUSAL.replace(/\s+/g, ' '));
		expect(rows.shown).toBe(3);
	});

	test('too tall for the screen: the rows that fit less one, which says where they are', () => {
		const many = Array.from({length: 40}, (_, i) => `rank ${i}  pid ${1000 + i}  handles SIGUSR1`);
		const rows = confirmRows('Send SIGUSR1 (save) to job x?', many, 60, 15);
		// 12 rows at most: the border, the title, the buttons, and a row saying which rows are shown.
		expect(rows.body).toHaveLength(40);
		expect(rows.shown).toBe(12 - 2 - 1 - 1 - 1);
	});

	test('a title too long for a row wraps too: the job it names is read whole', () => {
		const job = `rdzv:${'node-a.example.org'.repeat(4)}:29500`;
		const rows = confirmRows(`Send SIGUSR1 (save) to job ${job}?`, lines, 60, 15);
		expect(rows.title.length).toBeGreaterThan(1);
		expect(rows.title.join('').replace(/\s+/g, '')).toContain(job);
	});
});
