import {afterEach, expect, test} from 'vitest';
import {helpEntries} from '../../src/ui/keymap.js';
import {endDemoRun} from '../helpers/demo-run.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal} from '../helpers/tmux.js';

// The boxes over the panes, in a real terminal beside `traintop demo` (its rank 3 has no SIGUSR1 handler): each box
// wraps its text instead of cutting it (the confirm box's refusal line above all), and clears the rows it covers,
// so no piece of a pane shows at its edges.

let term: Terminal | null = null;
let runDir = '';

afterEach(async () => {
	term?.close();
	term = null;
	await endDemoRun(runDir);
	runDir = '';
});

/** The demo's TUI in a `columns` × `rows` terminal, its 4 ranks listed. */
async function demoIn(columns: number, rows: number): Promise<Terminal> {
	requireBuild();
	const opened = new Terminal(columns, rows);
	term = opened;
	opened.keys(`PS1='$ '; ${process.execPath} ${CLI} demo --nvidia-smi /nonexistent; echo "EXIT=$?"`, 'Enter');
	const first = await opened.until(s => /RANKS 4/.test(s) && /USR1✗/.test(s), 'the demo TUI with its 4 ranks', 30_000);
	runDir = /run dir (\/tmp\/traintop-demo-\S+?)(?:…|\s|$)/.exec(first)?.[1] ?? '';
	return opened;
}

/** A box on the screen: the rows of its top and bottom borders, the columns of its left and right ones. */
interface BoxOnScreen {
	readonly top: number;
	readonly bottom: number;
	readonly left: number;
	readonly right: number;
	/** Each screen row as its characters (every character here is one column wide). */
	readonly rows: readonly string[][];
	/** The text between the side borders, row by row, its margins trimmed. */
	readonly inner: readonly string[];
}

function boxOn(screen: string): BoxOnScreen | null {
	const rows = screen.split('\n').map(line => [...line]);
	const top = rows.findIndex(row => row.includes('╭'));
	if (top < 0) return null;
	const left = rows[top]!.indexOf('╭');
	const right = rows[top]!.lastIndexOf('╮');
	const bottom = rows.findIndex((row, at) => at > top && row[left] === '╰');
	if (right < 0 || bottom < 0) return null;
	const inner = rows.slice(top + 1, bottom).map(row =>
		row
			.slice(left + 1, right)
			.join('')
			.trim(),
	);
	return {top, bottom, left, right, rows, inner};
}

/**
 * Pane fragments at a box's edges, as `row N: "text"`: on every row from the box's top border to its bottom one,
 * anything but blanks left of its left border or right of its right one (the box's rows are cleared across the
 * screen), and a side border that is not there (a pane drawn over it).
 */
function fragments(box: BoxOnScreen): string[] {
	const found: string[] = [];
	for (let at = box.top; at <= box.bottom; at++) {
		const row = box.rows[at] ?? [];
		const outside = `${row.slice(0, box.left).join('')}${row.slice(box.right + 1).join('')}`;
		if (outside.trim() !== '') found.push(`row ${at}: "${outside.trim()}"`);
		if (at > box.top && at < box.bottom && (row[box.left] !== '│' || row[box.right] !== '│'))
			found.push(`row ${at}: border broken: "${row.join('')}"`);
	}
	return found;
}

/** The box's text as one line: its rows joined, blanks collapsed (a wrapped line reads whole again). */
const flowed = (lines: readonly string[]): string => lines.join(' ').replace(/\s+/g, ' ');
const collapse = (text: string): string => text.replace(/\s+/g, ' ');

/** Opens a box with `key`, waits for `shown`, checks its edges, closes it with Esc; returns it. */
async function openBox(opened: Terminal, key: string, shown: RegExp, what: string): Promise<BoxOnScreen> {
	opened.keys(key);
	const screen = await opened.until(s => shown.test(s) && boxOn(s) !== null, what, 30_000);
	const box = boxOn(screen)!;
	expect(fragments(box), screen).toEqual([]);
	return box;
}

async function closeBox(opened: Terminal): Promise<void> {
	opened.keys('Escape');
	await opened.until(s => boxOn(s) === null && /^RANKS 4/m.test(s), 'the box closed');
}

for (const [columns, rows] of [
	[80, 24],
	[120, 40],
] as const) {
	test(`${columns}×${rows}: the confirm, help and analysis boxes leave no pane fragments at their edges; the refusal whole`, async () => {
		const opened = await demoIn(columns, rows);
		const confirm = await openBox(opened, 's', /Send SIGUSR1 \(save\) to job launcher\.py:\d+\?/, 'the confirm box');
		expect(flowed(confirm.inner)).toContain('will be refused (the TUI never forces; traintop signal --force does)');
		await closeBox(opened);
		await openBox(opened, '?', /traintop keys/, 'help');
		await closeBox(opened);
		// The analysis: its report, not the "reading the log…" line it opens with.
		await openBox(opened, 'a', /Analysis of this run's memory log/, 'the analysis');
		await opened.until(s => !/reading the log…/.test(s), 'the report read');
		const report = boxOn(opened.screen());
		expect(report).not.toBeNull();
		expect(fragments(report!), opened.screen()).toEqual([]);
		await closeBox(opened);
	});
}

test('80×24: the confirm box shows the whole refusal line of rank 3 (no SIGUSR1 handler)', async () => {
	const opened = await demoIn(80, 24);
	const pid = /^ +3 +(\d+) /m.exec(opened.screen())?.[1];
	expect(pid).toBeDefined();
	opened.keys('s');
	const screen = await opened.until(
		s => /Send SIGUSR1 \(save\) to job launcher\.py:\d+\?/.test(s) && boxOn(s) !== null,
		'the confirm box',
		30_000,
	);
	const box = boxOn(screen)!;
	expect(flowed(box.inner), box.inner.join('\n')).toContain(
		`rank 3 pid ${pid} NO HANDLER: SIGUSR1 would terminate it — will be refused (the TUI never forces; traintop signal --force does)`,
	);
	// Cancel stays the default.
	expect(box.inner.join('\n')).toMatch(/▸ Cancel/);
});

test('80×24: help lists every key with its whole text, Enter once', async () => {
	const opened = await demoIn(80, 24);
	opened.keys('?');
	// The help scrolls at this size: its rows gathered page by page, by the row numbers its title gives.
	const byRow = new Map<number, string>();
	for (;;) {
		const screen = await opened.until(s => /traintop keys/.test(s) && boxOn(s) !== null, 'help', 30_000);
		const box = boxOn(screen)!;
		expect(fragments(box), screen).toEqual([]);
		const range = /\(lines (\d+)–(\d+) of (\d+)\)/.exec(box.inner[0] ?? '');
		const [first, last, total] = range ? range.slice(1).map(Number) : [1, box.inner.length - 1, box.inner.length - 1];
		for (const [at, line] of box.inner.slice(1).entries()) byRow.set(first! + at, line);
		if (last! >= total!) break;
		opened.keys('PageDown');
		await opened.until(s => !s.includes(range![0]), 'the next page of help', 30_000);
	}
	const lines = [...byRow.entries()].sort(([a], [b]) => a - b).map(([, line]) => line);
	const text = flowed(lines);
	for (const entry of helpEntries(false)) expect(text, lines.join('\n')).toContain(collapse(entry.description));
	expect(
		lines.filter(line => /^Enter\b/.test(line)),
		lines.join('\n'),
	).toHaveLength(1);
});
