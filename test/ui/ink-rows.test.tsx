import {afterAll, describe, expect, test, vi} from 'vitest';

// ink-rows.ts draws a frame's rows without Ink's cell grid where it can. What the terminal shows must not change:
// each case renders a tree with Ink's own Output.get and with the composer, and compares the two frames cell by
// cell (each character and the styles a terminal draws it in). Colour is forced on (before chalk is first
// imported) so that styles are compared too.
vi.hoisted(() => {
	process.env.FORCE_COLOR = '3';
});

import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import fc from 'fast-check';
import type React from 'react';
import {Box, renderToString, Text} from 'ink';
import {ColorContext} from '../../src/ui/color.js';
import {closedStyles, installInkRows, uninstallInkRows} from '../../src/ui/ink-rows.js';
import Gauge from '../../src/ui/widgets/Gauge.js';
import KeyBar from '../../src/ui/widgets/KeyBar.js';
import Line from '../../src/ui/widgets/Line.js';

const inkBuild = path.dirname(createRequire(import.meta.url).resolve('ink'));
const inkVersion = (JSON.parse(readFileSync(path.join(inkBuild, '..', 'package.json'), 'utf8')) as {version: string})
	.version;

/**
 * What a terminal shows for a frame: per row, each character with the styles it is drawn in (SGR read as a
 * terminal reads it), trailing blank cells left out. Two frames that differ only in how their codes are ordered
 * or repeated show the same cells.
 */
function screenCells(frame: string): string[][] {
	return frame.split('\n').map(row => {
		const style = new Map<string, string>();
		const cells: string[] = [];
		// biome-ignore lint/suspicious/noControlCharactersInRegex: the escapes are what is read.
		for (const [, params, char] of row.matchAll(/\u001B\[([\d;]*)m|([\s\S])/gu)) {
			if (char !== undefined) {
				cells.push(`${char}\t${[...style].sort().join(' ')}`);
				continue;
			}
			const codes = (params || '0').split(';').map(Number);
			const first = codes[0]!;
			const set = (family: string, value: string | null) =>
				value === null ? style.delete(family) : style.set(family, value);
			if (first === 0) style.clear();
			else if (first === 1) set('bold', 'on');
			else if (first === 2) set('dim', 'on');
			else if (first === 22) {
				set('bold', null);
				set('dim', null);
			} else if (first === 38 || (first >= 30 && first <= 37) || (first >= 90 && first <= 97))
				set('fg', codes.join(';'));
			else if (first === 39) set('fg', null);
			else if (first === 48 || (first >= 40 && first <= 47) || (first >= 100 && first <= 107))
				set('bg', codes.join(';'));
			else if (first === 49) set('bg', null);
			else if (first >= 3 && first <= 9) set(`attr${first}`, 'on');
			else if (first >= 23 && first <= 29) set(`attr${first - 20}`, null);
			else cells.push(`?${codes.join(';')}`);
		}
		while (cells.length > 0 && cells.at(-1) === ' \t') cells.pop();
		return cells;
	});
}

/** The tree's frame drawn by Ink alone and with the composer, both in canonical form. */
async function bothWays(tree: React.ReactElement, columns: number): Promise<{ink: string[][]; composed: string[][]}> {
	uninstallInkRows();
	const ink = renderToString(tree, {columns});
	expect(await installInkRows()).toBe(true);
	const composed = renderToString(tree, {columns});
	uninstallInkRows();
	return {ink: screenCells(ink), composed: screenCells(composed)};
}

afterAll(uninstallInkRows);

const coloured = (node: React.ReactNode) => <ColorContext.Provider value>{node}</ColorContext.Provider>;

describe('closedStyles', () => {
	test.each([
		['plain text', true],
		['\u001B[1mbold\u001B[22m then plain', true],
		['\u001B[2m\u001B[31mdim red\u001B[39m\u001B[22m', true],
		['\u001B[7m› \u001B[38;5;202mX\u001B[39m\u001B[27m', true],
		['\u001B[38;2;1;2;3mrgb\u001B[39m', true],
		['\u001B[1mleft open', false],
		['\u001B[32mgreen\u001B[22m', false],
		['\u001B[1;32mtwo at once\u001B[0m', false],
		['\u001B]8;;https://x\u0007link\u001B]8;;\u0007', false],
		['\u001B[0m reset only', true],
	])('%j → %s', (line, closed) => {
		expect(closedStyles(line)).toBe(closed);
	});
});

describe('installInkRows', () => {
	test('installs into this Ink (6.8)', async () => {
		expect(inkVersion.startsWith('6.8.')).toBe(true);
		expect(await installInkRows()).toBe(true);
		uninstallInkRows();
	});

	test('colour is on in this file (else styles would not be compared)', () => {
		expect(renderToString(<Text color="green">x</Text>)).toContain('\u001B[');
	});
});

describe('the screen is the same, cell by cell, as Ink draws it', () => {
	const hints = [
		{key: 'q', label: 'quit'},
		{key: '↑↓', label: 'move'},
		{key: 'space', label: 'mark'},
		{key: '?', label: 'help'},
	];
	const gauge = (label: string, percent: number, width: number) => (
		<Gauge
			label={label}
			percent={percent}
			level={percent > 90 ? 'critical' : percent > 80 ? 'warn' : 'ok'}
			threshold={90}
			peak={percent + 1}
			headroomBytes={(90 - percent) * 2 ** 30}
			usedBytes={percent * 2 ** 30}
			totalBytes={100 * 2 ** 30}
			history={[10, 50, percent, 99]}
			sparklineWidth={8}
			width={width}
		/>
	);
	const cases: Record<string, [React.ReactElement, number]> = {
		'stacked lines: gauges, bold, dim, inverse, a key bar': [
			coloured(
				<Box flexDirection="column" width={120}>
					<Line width={120}>
						<Text bold>MEMORY</Text> node1 · CPU 37% of 2 cores
					</Line>
					{gauge('RAM', 78, 120)}
					{gauge('GPU0', 95, 120)}
					<Line width={120} dim>
						{'   RANK     PID ST  CPU%'}
					</Line>
					<Box width={120}>
						<Text wrap="truncate-end" inverse>
							{'›● '}
							<Text color="yellow" bold>
								{'     0   27072 S'}
							</Text>{' '}
							TERM<Text color="green">✓</Text> USR1<Text color="red">✗</Text> python3 train.py
						</Text>
					</Box>
					<KeyBar hints={hints} width={120} />
				</Box>,
			),
			120,
		],
		'panes side by side, gauges packed two a line': [
			coloured(
				<Box flexDirection="column" width={200}>
					<Box columnGap={2}>
						{gauge('GPU0', 52, 99)}
						{gauge('GPU1', 82, 99)}
					</Box>
					<Box columnGap={2}>
						<Box flexDirection="column" width={120}>
							<Line width={120}>
								<Text bold>RANKS</Text> 8 (world 8) · job launcher.py:27030 · target: all
							</Line>
							<Line width={120}>{'      1   27073 S     0% 15.7 MiB        -   2 TERM✓ INT✓'}</Line>
						</Box>
						<Box flexDirection="column" width={78}>
							<Line width={78}>
								<Text bold>CHECKPOINTS</Text> 50 · last save 26 s ago
							</Line>
							<Line width={78}>{'step 5000    26 s ago      22 B  complete'}</Line>
						</Box>
					</Box>
					<Text>⠀⡀⣀⣤⣶⣿ braille, then ▁▂▃▅▇█</Text>
				</Box>,
			),
			200,
		],
		'a bordered box over the panes (overlapping writes go Ink’s way)': [
			coloured(
				<Box flexDirection="column" width={80} height={8}>
					<Line width={80}>{'a'.repeat(80)}</Line>
					<Line width={80}>
						<Text color="red">{'b'.repeat(80)}</Text>
					</Line>
					<Line width={80}>{'c'.repeat(80)}</Line>
					<Box position="absolute" marginLeft={10} marginTop={1} borderStyle="round" borderColor="yellow">
						<Text bold>Send SIGUSR1 to 8 ranks? y/n</Text>
					</Box>
				</Box>,
			),
			80,
		],
		'wide, zero-width and combining characters, side by side': [
			coloured(
				<Box columnGap={1} width={60}>
					<Box width={20}>
						<Text>日本語 e\u0301 a\u200Bb</Text>
					</Box>
					<Box width={20}>
						<Text color="cyan">🚀 ok ✅</Text>
					</Box>
					<Text>tail</Text>
				</Box>,
			),
			60,
		],
		'a background colour and truncation': [
			coloured(
				<Box flexDirection="column" width={30}>
					<Box backgroundColor="blue" width={30}>
						<Text>on blue</Text>
					</Box>
					<Box width={30}>
						<Text wrap="truncate-end">{'a long line that will be cut at thirty columns'}</Text>
					</Box>
					<Box width={30}>
						<Text wrap="truncate-middle" color="#ff8800">
							{'middle of this long line is cut out'}
						</Text>
					</Box>
				</Box>,
			),
			30,
		],
	};

	test.each(Object.entries(cases))('%s', async (_, [tree, columns]) => {
		const {ink, composed} = await bothWays(tree, columns);
		expect(composed).toEqual(ink);
	});

	test('random lines of styled runs, one pane or two side by side', async () => {
		const colours = [undefined, 'red', 'green', 'yellow', 'cyan', '#336699'] as const;
		const run = fc.record({
			text: fc.string({
				unit: fc.constantFrom(
					'a',
					'Z',
					'7',
					' ',
					'·',
					'█',
					'░',
					'┊',
					'›',
					'✓',
					'✗',
					'…',
					'⣿',
					'日',
					'🚀',
					'é',
					'\u0301',
				),
				maxLength: 12,
			}),
			color: fc.constantFrom(...colours),
			// Bold and dim are both closed by SGR 22: see the test after this one.
			weight: fc.constantFrom('normal', 'bold', 'dim'),
			inverse: fc.boolean(),
		});
		const line = fc.array(run, {maxLength: 5});
		const pane = fc.array(line, {minLength: 1, maxLength: 4});
		await fc.assert(
			fc.asyncProperty(
				pane,
				fc.option(pane, {nil: null}),
				fc.integer({min: 10, max: 60}),
				async (left, right, width) => {
					const draw = (lines: typeof left, key: string) => (
						<Box key={key} flexDirection="column" width={width}>
							{lines.map((runs, i) => (
								<Box key={i} width={width}>
									<Text wrap="truncate-end">
										{runs.map((r, j) => (
											<Text
												key={j}
												color={r.color}
												bold={r.weight === 'bold'}
												dimColor={r.weight === 'dim'}
												inverse={r.inverse}
											>
												{r.text}
											</Text>
										))}
									</Text>
								</Box>
							))}
						</Box>
					);
					const tree = (
						<Box columnGap={2}>
							{draw(left, 'left')}
							{right ? draw(right, 'right') : null}
						</Box>
					);
					const {ink, composed} = await bothWays(tree, 2 * width + 2);
					expect(composed).toEqual(ink);
				},
			),
			{numRuns: 300},
		);
	});

	test('bold inside dim: Ink’s own grid loses the bold once the dim closes; the composer draws what chalk wrote', async () => {
		// chalk writes ESC[1m ESC[2m a ESC[22m ESC[1m ESC[22m ESC[1m a ESC[22m: the second a is bold. Ink's grid
		// writes ESC[1m ESC[2m a ESC[22m a ESC[22m, whose 22 ends the bold too on a terminal.
		const tree = (
			<Box width={10}>
				<Text>
					<Text bold dimColor>
						a
					</Text>
					<Text bold>a</Text>
				</Text>
			</Box>
		);
		const {ink, composed} = await bothWays(tree, 10);
		expect(composed).toEqual([['a\tbold,on dim,on', 'a\tbold,on']]);
		expect(ink).toEqual([['a\tbold,on dim,on', 'a\t']]);
	});
});
