import type React from 'react';
import {afterEach, describe, expect, test} from 'vitest';
import {Box} from 'ink';
import {cleanup, render} from 'ink-testing-library';
import Confirm from '../../../src/ui/widgets/Confirm.js';
import Help from '../../../src/ui/widgets/Help.js';
import KeyBar from '../../../src/ui/widgets/KeyBar.js';
import TextBox from '../../../src/ui/widgets/TextBox.js';
import {fitKeyBar} from '../../../src/ui/widgets/key-bar.js';
import {expectFits, frameLines} from '../fixtures.js';

afterEach(cleanup);

// A box floats: Ink lays it out over whatever its parent holds and sizes nothing by it, so each box
// is drawn on a screen of columns × rows (the rows − 1 lines the app draws), as in the app.
function onScreen(box: React.ReactElement, columns: number, rows: number): string[] {
	const {lastFrame} = render(
		<Box width={columns} height={rows - 1}>
			{box}
		</Box>,
	);
	return expectFits(lastFrame(), columns, rows - 1);
}

/** The box's lines (its border's first to last line), cut to its columns, and where it is. */
function boxOf(lines: readonly string[]): {left: number; top: number; rows: string[]} {
	const top = lines.findIndex(l => l.includes('╭'));
	const bottom = lines.findIndex(l => l.includes('╰'));
	const left = [...lines[top]!].indexOf('╭');
	const right = [...lines[top]!].indexOf('╮');
	return {left, top, rows: lines.slice(top, bottom + 1).map(l => [...l].slice(left, right + 1).join(''))};
}

const targets = [
	'pid 10000  rank 0  handles SIGUSR1',
	'pid 10001  rank 1  handles SIGUSR1',
	'pid 10002  rank 2  NO HANDLER: SIGUSR1 would kill it (refused)',
];

describe('Confirm', () => {
	test('Cancel is selected by default', () => {
		const frame = onScreen(
			<Confirm title="Send SIGUSR1 to 3 ranks?" lines={targets} confirmLabel="Send SIGUSR1" width={80} height={24} />,
			80,
			24,
		).join('\n');
		expect(frame).toContain('▸ Cancel');
		expect(frame).not.toContain('▸ Send SIGUSR1');
		expect(frame).toContain('Send SIGUSR1');
	});

	test('the selected prop moves the highlight', () => {
		const frame = onScreen(
			<Confirm
				title="Emergency checkpoint?"
				lines={targets}
				confirmLabel="Send SIGTERM"
				selected="confirm"
				danger
				width={80}
				height={24}
			/>,
			80,
			24,
		).join('\n');
		expect(frame).toContain('▸ Send SIGTERM');
		expect(frame).not.toContain('▸ Cancel');
	});

	test('a bordered box as wide as its widest line, centred, every line padded to the border', () => {
		const lines = onScreen(
			<Confirm title="Send SIGUSR1 to 3 ranks?" lines={targets} confirmLabel="Send" width={80} height={24} />,
			80,
			24,
		);
		const box = boxOf(lines);
		// The widest line (the third target), a space and the border each side; a blank line around the body.
		const width = targets[2]!.length + 4;
		const height = 2 + 1 + 1 + targets.length + 1 + 1;
		expect(box.left).toBe(Math.floor((80 - width) / 2));
		expect(box.top).toBe(Math.floor((22 - height) / 2));
		expect(box.rows).toEqual([
			`╭${'─'.repeat(width - 2)}╮`,
			`│ ${'Send SIGUSR1 to 3 ranks?'.padEnd(width - 4)} │`,
			`│${' '.repeat(width - 2)}│`,
			...targets.map(t => `│ ${t.padEnd(width - 4)} │`),
			`│${' '.repeat(width - 2)}│`,
			`│ ${'▸ Cancel      Send'.padEnd(width - 4)} │`,
			`╰${'─'.repeat(width - 2)}╯`,
		]);
	});

	test('a long target list scrolls: the rows that fit, a row saying which, the buttons; scroll shows the rest', () => {
		const many = Array.from({length: 64}, (_, i) => `pid ${10_000 + i}  rank ${i}`);
		const at = (scroll: number) =>
			onScreen(
				<Confirm
					title="Send SIGUSR1 to 64 ranks?"
					lines={many}
					confirmLabel="Send"
					width={60}
					height={15}
					scroll={scroll}
				/>,
				60,
				15,
			);
		const top = boxOf(at(0)).rows;
		// rows − 3 lines at most: border, title, 7 targets, which rows they are, the buttons.
		expect(top).toHaveLength(12);
		expect(top[2]).toContain('pid 10000');
		expect(top[8]).toContain('pid 10006');
		expect(top[9]).toContain('↑↓ more · rows 1–7 of 64');
		expect(top[10]).toContain('▸ Cancel');
		const end = boxOf(at(100)).rows;
		expect(end[2]).toContain('pid 10057');
		expect(end[8]).toContain('pid 10063');
		expect(end[9]).toContain('rows 58–64 of 64');
	});

	test('a line wider than the box wraps under itself, whole: the refusal is read to its end', () => {
		const refusal =
			'rank 3  pid 4321  NO HANDLER: SIGUSR1 would terminate it — will be refused (the TUI never forces; traintop signal --force does)';
		const rows = boxOf(
			onScreen(
				<Confirm title="Send SIGUSR1 (save) to job x?" lines={[refusal]} confirmLabel="Send" width={80} height={24} />,
				80,
				24,
			),
		).rows;
		// Wrapped to the widest box's 72 columns of text; the box as wide as its widest row.
		const inner = rows[0]!.length - 4;
		expect(inner).toBeLessThanOrEqual(72);
		expect(rows[3]).toBe(`│ ${'rank 3  pid 4321  NO HANDLER: SIGUSR1 would terminate it — will be'.padEnd(inner)} │`);
		expect(rows[4]).toBe(`│ ${'  refused (the TUI never forces; traintop signal --force does)'.padEnd(inner)} │`);
	});
});

describe('Help', () => {
	const entries = [
		{keys: 'q Ctrl-C', description: 'quit'},
		{keys: '↑↓ j k', description: 'move'},
		{keys: 'space', description: 'mark or unmark a rank as a target'},
		{keys: 's', description: 'save: send the save signal'},
		{keys: '?', description: 'help'},
	];

	test('lists every key with its description, keys in one column', () => {
		const lines = onScreen(<Help entries={entries} width={60} height={24} />, 60, 24);
		expect(boxOf(lines).rows).toHaveLength(2 + 1 + entries.length);
		expect(lines.join('\n')).toContain('Keys');
		expect(lines.find(l => l.includes('q Ctrl-C'))).toMatch(/│ q Ctrl-C {2}quit {30}│/);
		expect(lines.find(l => l.includes('space'))).toMatch(/│ space {5}mark or unmark a rank as a target │/);
	});

	test('a description wider than the box wraps in its column, beside the keys', () => {
		const long = [{keys: 'Enter', description: `open the detail; ${'in a confirm: press the button; '.repeat(3)}end`}];
		const rows = boxOf(onScreen(<Help entries={[...entries, ...long]} width={60} height={24} />, 60, 24)).rows;
		// Wrapped to the widest box's 52 columns of text; the description's column starts after the widest keys and
		// 2 blanks.
		const inner = rows[0]!.length - 4;
		expect(inner).toBeLessThanOrEqual(52);
		const enter = rows.findIndex(row => row.includes('Enter'));
		expect(rows[enter]).toBe(`│ ${'Enter     open the detail; in a confirm: press the'.padEnd(inner)} │`);
		expect(rows[enter + 1]).toBe(`│ ${'          button; in a confirm: press the button; in'.padEnd(inner)} │`);
		expect(rows[enter + 2]).toBe(`│ ${'          a confirm: press the button; end'.padEnd(inner)} │`);
	});

	test('taller than the screen: the lines that fit, which they are, and scroll shows the rest', () => {
		const long = Array.from({length: 20}, (_, i) => ({keys: `k${i}`, description: `key number ${i}`}));
		const top = onScreen(<Help entries={long} width={60} height={15} />, 60, 15);
		const box = boxOf(top);
		expect(box.rows).toHaveLength(12);
		expect(box.rows[1]).toContain('Keys (lines 1–9 of 20)');
		expect(top.join('\n')).toContain('key number 8');
		expect(top.join('\n')).not.toContain('key number 9');
		const end = onScreen(<Help entries={long} width={60} height={15} scroll={50} />, 60, 15).join('\n');
		expect(end).toContain('Keys (lines 12–20 of 20)');
		expect(end).toContain('key number 19');
		expect(end).not.toContain('key number 10 ');
	});
});

describe('TextBox', () => {
	const lines = ['rank 0  pid 10000  sent', 'rank 1  pid 10001  sent'];

	test('as small as its text, centred', () => {
		const frame = onScreen(
			<TextBox title="SIGUSR1: sent 2" lines={lines} footer="Esc: close" width={100} height={30} />,
			100,
			30,
		);
		const box = boxOf(frame);
		const width = lines[0]!.length + 4;
		expect(box.rows).toHaveLength(2 + 1 + lines.length + 1);
		expect(box.left).toBe(Math.floor((100 - width) / 2));
		expect(box.top).toBe(Math.floor((28 - box.rows.length) / 2));
		expect(box.rows[1]).toBe(`│ ${'SIGUSR1: sent 2'.padEnd(width - 4)} │`);
		expect(box.rows[4]).toBe(`│ ${'Esc: close'.padEnd(width - 4)} │`);
	});

	test('place="top": on the first line, the screen below it free', () => {
		const frame = onScreen(
			<TextBox title="SIGUSR1: sent 2" lines={lines} footer="Esc: close" width={100} height={30} place="top" />,
			100,
			30,
		);
		expect(boxOf(frame).top).toBe(0);
		expect(frame.slice(6).every(l => l.trim() === '')).toBe(true);
	});

	test('a line wider than the box wraps under itself', () => {
		const long = `  ${Array.from({length: 20}, (_, i) => `part${i}`).join(' ')}`;
		const rows = boxOf(
			onScreen(<TextBox title="Report" lines={[long]} footer="Esc" width={60} height={24} />, 60, 24),
		).rows;
		// Wrapped to the widest box's 52 columns of text, continuation rows 2 columns under the line's own text.
		const inner = rows[0]!.length - 4;
		expect(inner).toBeLessThanOrEqual(52);
		expect(rows[2]).toBe(`│ ${'  part0 part1 part2 part3 part4 part5 part6 part7'.padEnd(inner)} │`);
		expect(rows[3]).toBe(`│ ${'    part8 part9 part10 part11 part12 part13 part14'.padEnd(inner)} │`);
		expect(rows[4]).toBe(`│ ${'    part15 part16 part17 part18 part19'.padEnd(inner)} │`);
		expect(rows[5]).toContain('Esc');
	});

	test('longer than the screen: a page from scroll, and which lines they are', () => {
		const many = Array.from({length: 40}, (_, i) => `line ${i}`);
		const frame = onScreen(
			<TextBox title="Report" lines={many} scroll={10} footer="↑↓ scroll" width={80} height={24} />,
			80,
			24,
		);
		const box = boxOf(frame);
		expect(box.rows).toHaveLength(21);
		expect(box.rows[1]).toContain('Report (lines 11–27 of 40)');
		expect(box.rows[2]).toContain('line 10');
		expect(box.rows[18]).toContain('line 26');
	});
});

describe('KeyBar', () => {
	const hints = [
		{key: 'q', label: 'quit'},
		{key: '↑↓', label: 'move'},
		{key: 'space', label: 'mark'},
		{key: 's', label: 'save'},
		{key: 'e', label: 'emergency'},
		{key: '?', label: 'help'},
	];

	test('all hints on one line when they fit', () => {
		const {lastFrame} = render(<KeyBar hints={hints} width={80} />);
		expect(frameLines(lastFrame())).toEqual(['q quit  ↑↓ move  space mark  s save  e emergency  ? help']);
	});

	test('hints that do not fit are left out whole, never cut', () => {
		expect(fitKeyBar(hints, 35).map(h => h.key)).toEqual(['q', '↑↓', 'space', 's']);
		const {lastFrame} = render(<KeyBar hints={hints} width={35} />);
		expectFits(lastFrame(), 35, 1);
		expect(lastFrame()).toBe('q quit  ↑↓ move  space mark  s save');
	});
});
