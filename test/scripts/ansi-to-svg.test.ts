import {expect, test} from 'vitest';
// @ts-expect-error: a plain .mjs script (npm run screenshots uses it), without type declarations
import {ansiToSvg, parseAnsi} from '../../scripts/ansi-to-svg.mjs';

type Run = {text: string; fg: string; bg: string | null; bold: boolean; dim: boolean};

test('SGR colours, bold, inverse and resets become styled runs; other escapes are dropped', () => {
	const rows = parseAnsi(
		'a\u001B[31mred\u001B[0m \u001B[1;38;5;46mgreen\u001B[22m\u001B[7mX\u001B[27m\u001B(B!\n\u001B[48;2;16;32;48mbg',
	) as Run[][];
	expect(rows[0]!.map(r => r.text)).toEqual(['a', 'red', ' ', 'green', 'X', '!']);
	expect(rows[0]![1]).toMatchObject({fg: '#e06c75', bold: false});
	expect(rows[0]![3]).toMatchObject({fg: '#00ff00', bold: true});
	// Inverse swaps: the default foreground becomes the background.
	expect(rows[0]![4]).toMatchObject({bg: '#00ff00'});
	expect(rows[1]![0]).toMatchObject({text: 'bg', bg: '#102030'});
});

test('the SVG has one text per styled run, escaped, on a grid of the given size', () => {
	const svg = ansiToSvg('x < y & \u001B[33mz\u001B[0m\nsecond', {columns: 10, rows: 2}) as string;
	expect(svg).toMatch(/^<svg [^>]*width="108" height="58"/);
	expect(svg).toContain('>x &lt; y &amp; </text>');
	expect(svg).toMatch(/fill="#e5c07b"[^>]*>z<\/text>/);
	expect(svg).toMatch(/y="42"[^>]*>second<\/text>/);
});
