import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import Confirm from '../../../src/ui/widgets/Confirm.js';
import Help from '../../../src/ui/widgets/Help.js';
import KeyBar from '../../../src/ui/widgets/KeyBar.js';
import {fitKeyBar} from '../../../src/ui/widgets/key-bar.js';
import {expectFits, frameLines} from '../fixtures.js';

afterEach(cleanup);

const targets = [
	'pid 10000  rank 0  handles SIGUSR1',
	'pid 10001  rank 1  handles SIGUSR1',
	'pid 10002  rank 2  NO HANDLER: SIGUSR1 would kill it (refused)',
];

describe('Confirm', () => {
	test('Cancel is selected by default', () => {
		const {lastFrame} = render(
			<Confirm title="Send SIGUSR1 to 3 ranks?" lines={targets} confirmLabel="Send SIGUSR1" width={70} />,
		);
		expect(lastFrame()).toContain('▸ Cancel');
		expect(lastFrame()).not.toContain('▸ Send SIGUSR1');
		expect(lastFrame()).toContain('Send SIGUSR1');
	});

	test('the selected prop moves the highlight', () => {
		const {lastFrame} = render(
			<Confirm
				title="Emergency checkpoint?"
				lines={targets}
				confirmLabel="Send SIGTERM"
				selected="confirm"
				danger
				width={70}
			/>,
		);
		expect(lastFrame()).toContain('▸ Send SIGTERM');
		expect(lastFrame()).not.toContain('▸ Cancel');
	});

	test('a bordered box with the title and every target line', () => {
		const {lastFrame} = render(
			<Confirm title="Send SIGUSR1 to 3 ranks?" lines={targets} confirmLabel="Send" width={80} />,
		);
		const lines = expectFits(lastFrame(), 80, 2 + 1 + 1 + targets.length + 1 + 1);
		expect(lines[0]).toMatch(/^╭─+╮$/);
		expect(lines.at(-1)).toMatch(/^╰─+╯$/);
		expect(lines[1]).toContain('Send SIGUSR1 to 3 ranks?');
		for (const target of targets) expect(lastFrame()).toContain(target);
	});

	test('a long target list is cut to the height, saying how many more', () => {
		const many = Array.from({length: 64}, (_, i) => `pid ${10_000 + i}  rank ${i}`);
		const {lastFrame} = render(
			<Confirm title="Send SIGUSR1 to 64 ranks?" lines={many} confirmLabel="Send" width={60} height={12} />,
		);
		expectFits(lastFrame(), 60, 12);
		expect(lastFrame()).toContain('pid 10000');
		expect(lastFrame()).toContain('… +57 more');
		expect(lastFrame()).toContain('▸ Cancel');
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
		const {lastFrame} = render(<Help entries={entries} width={60} />);
		const lines = expectFits(lastFrame(), 60, 2 + 1 + entries.length);
		expect(lastFrame()).toContain('Keys');
		expect(lines.find(l => l.includes('q Ctrl-C'))).toMatch(/│ q Ctrl-C {2}quit/);
		expect(lines.find(l => l.includes('space'))).toMatch(/│ space {5}mark or unmark a rank as a target/);
	});

	test('cut to its height with a count of the rest', () => {
		const {lastFrame} = render(<Help entries={entries} width={60} height={6} />);
		expectFits(lastFrame(), 60, 6);
		expect(lastFrame()).toContain('… +3 more');
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
