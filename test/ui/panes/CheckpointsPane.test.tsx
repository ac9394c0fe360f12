import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import CheckpointsPane, {type Props} from '../../../src/ui/panes/CheckpointsPane.js';
import type {SaveCadence} from '../../../src/core/types.js';
import {cadenceEvery300, checkpoint, checkpointIndex, expectFits, frameLines, GIB, NOW} from '../fixtures.js';

afterEach(cleanup);

const base: Props = {index: checkpointIndex(), now: NOW, width: 80, height: 8, compact: true};

function rowOf(frame: string | undefined, step: number): string {
	const row = frameLines(frame).find(line => new RegExp(`^step +${step} `).test(line));
	if (row === undefined) throw new Error(`no row for step ${step} in\n${frame}`);
	return row;
}

describe('CheckpointsPane', () => {
	test('a header, then the timeline newest first', () => {
		const {lastFrame} = render(<CheckpointsPane {...base} />);
		const lines = expectFits(lastFrame(), 80, 8);
		expect(lines[0]).toBe('CHECKPOINTS 5 · last save 30 min ago · 20.0 GiB free · ~40 saves fit');
		expect(lines.slice(1).map(line => /^step +(\d+)/.exec(line)?.[1])).toEqual(['1510', '1500', '1200', '1000', '500']);
		expect(rowOf(lastFrame(), 1200)).toMatch(/^step 1200 {2}45 min ago {3}512 MiB {2}manual$/);
	});

	test('a save still being written is PARTIAL; the next to be deleted is PRUNE NEXT', () => {
		const {lastFrame} = render(<CheckpointsPane {...base} />);
		expect(rowOf(lastFrame(), 1510)).toMatch(/^step 1510 {4}60 s ago {3}100 MiB {2}periodic +PARTIAL$/);
		expect(rowOf(lastFrame(), 500)).toMatch(/1\.5 h ago +512 MiB +periodic +PRUNE NEXT$/);
		expect(rowOf(lastFrame(), 1500)).not.toMatch(/PARTIAL|PRUNE/);
	});

	test('the wide form adds each name, in one column', () => {
		const {lastFrame} = render(<CheckpointsPane {...base} width={100} compact={false} />);
		expect(frameLines(lastFrame())[0]).toContain('last save 30 min ago · 20.0 GiB free of 100 GiB · ');
		// The wide form names the framework and the rule it deletes by, above its checkpoints.
		expect(frameLines(lastFrame())[1]).toBe(
			'seed checkpointing in checkpoints/ · seed max_checkpoints 3 (checkpoint_metadata.json)',
		);
		const names = frameLines(lastFrame())
			.slice(2)
			.map(line => line.indexOf('checkpoint_step_'));
		expect(new Set(names).size).toBe(1);
		expect(names[0]).toBeGreaterThan(0);
		expectFits(lastFrame(), 100, 8);
	});

	test('an overdue save is called out first', () => {
		const overdue = checkpointIndex({
			lastSave: {time: NOW - 1_800_000, ageS: 1800, medianIntervalS: 900, periodicTime: NOW - 1_800_000, overdue: true},
		});
		const {lastFrame} = render(<CheckpointsPane {...base} index={overdue} />);
		expect(frameLines(lastFrame())[0]).toMatch(/^CHECKPOINTS 5 · OVERDUE: last periodic save 30 min ago · /);
	});

	test('the next save expected, or that the cadence is being learned, follows the last save', () => {
		const cadence: SaveCadence = cadenceEvery300(NOW + 60_000);
		const index = checkpointIndex({cadence, scannedAt: NOW});
		const wide = render(<CheckpointsPane {...base} index={index} width={160} compact={false} />);
		expect(frameLines(wide.lastFrame())[0]).toContain(
			'last save 30 min ago · next save ~step 1800 in 60 s (every 300 steps at 0.33 steps/s) · ',
		);
		const learning = {...cadence, learning: 'learning: 1 periodic save seen, 3 needed', overdueAt: null};
		const narrow = render(<CheckpointsPane {...base} index={checkpointIndex({cadence: learning, scannedAt: NOW})} />);
		expect(frameLines(narrow.lastFrame())[0]).toContain('last save 30 min ago · cadence: learning · ');
	});

	test('a disk about to fill is called out; rotation that keeps usage flat is said', () => {
		const low = checkpointIndex({
			disk: {freeBytes: 1.2 * GIB, totalBytes: 100 * GIB, avgCheckpointBytes: 0.5 * GIB, savesUntilFull: 2},
		});
		expect(frameLines(render(<CheckpointsPane {...base} index={low} />).lastFrame())[0]).toContain(
			'DISK FULL in ~2 saves',
		);
		const flat = checkpointIndex({
			disk: {freeBytes: 20 * GIB, totalBytes: 100 * GIB, avgCheckpointBytes: 0.5 * GIB, savesUntilFull: null},
		});
		expect(frameLines(render(<CheckpointsPane {...base} index={flat} />).lastFrame())[0]).toContain(
			'rotation keeps usage flat',
		);
	});

	test('the save request status goes under the header', () => {
		const waiting = render(<CheckpointsPane {...base} status={{text: 'waiting for checkpoint…', level: 'ok'}} />);
		expect(frameLines(waiting.lastFrame())[1]).toBe('» waiting for checkpoint…');
		const timeout = render(
			<CheckpointsPane {...base} height={6} status={{text: 'no new checkpoint 120 s after SIGUSR1', level: 'warn'}} />,
		);
		const lines = expectFits(timeout.lastFrame(), 80, 6);
		expect(lines[1]).toBe('WARN no new checkpoint 120 s after SIGUSR1');
		// The status takes a timeline row: 4 rows left for 5 checkpoints, so 3 and "+2 older".
		expect(lines.slice(2, 5).map(line => /^step +(\d+)/.exec(line)?.[1])).toEqual(['1510', '1500', '1200']);
		expect(lines[5]).toBe('+2 older');
	});

	test('more checkpoints than rows: the newest, then "+N older"', () => {
		const many = checkpointIndex({checkpoints: Array.from({length: 50}, (_, i) => checkpoint(100 * (i + 1), 50 - i))});
		const {lastFrame} = render(<CheckpointsPane {...base} index={many} height={5} />);
		const lines = expectFits(lastFrame(), 80, 5);
		expect(lines.slice(1, 4).map(line => /^step +(\d+)/.exec(line)?.[1])).toEqual(['5000', '4900', '4800']);
		expect(lines[4]).toBe('+47 older');
	});

	test('no run dir and a save sent: what became of it, then why there is no list', () => {
		const status = {
			text: 'SIGUSR1 sent 2026-11-24 02:00:00; no RUN_DIR given, so no checkpoint to wait for',
			level: 'warn',
		} as const;
		const {lastFrame} = render(<CheckpointsPane index={null} now={NOW} status={status} width={100} height={3} />);
		expect(expectFits(lastFrame(), 100, 3)).toEqual([
			'CHECKPOINTS',
			'WARN SIGUSR1 sent 2026-11-24 02:00:00; no RUN_DIR given, so no checkpoint to wait for',
			'no run dir: pass RUN_DIR to watch checkpoints',
		]);
		const two = render(<CheckpointsPane index={null} now={NOW} status={status} width={100} height={2} />);
		expect(frameLines(two.lastFrame())).toEqual([
			'CHECKPOINTS no run dir: pass RUN_DIR to watch checkpoints',
			'WARN SIGUSR1 sent 2026-11-24 02:00:00; no RUN_DIR given, so no checkpoint to wait for',
		]);
	});

	test('no run dir: how to give one', () => {
		const {lastFrame} = render(<CheckpointsPane {...base} index={null} />);
		expect(expectFits(lastFrame(), 80, 8)).toEqual(['CHECKPOINTS', 'no run dir: pass RUN_DIR to watch checkpoints']);
		const one = render(<CheckpointsPane {...base} index={null} height={1} />);
		expect(frameLines(one.lastFrame())).toEqual(['CHECKPOINTS no run dir: pass RUN_DIR to watch checkpoints']);
	});

	test('a run dir without checkpoints yet', () => {
		const empty = checkpointIndex({
			checkpoints: [],
			lastSave: null,
			disk: {freeBytes: null, totalBytes: null, avgCheckpointBytes: null, savesUntilFull: null},
		});
		const {lastFrame} = render(<CheckpointsPane {...base} index={empty} />);
		expect(expectFits(lastFrame(), 80, 8)).toEqual([
			'CHECKPOINTS 0 · no complete save yet',
			'no checkpoints yet in /runs/exp1',
		]);
	});

	test('a run dir searched without finding any: where it looked, and what it skipped', () => {
		const empty = checkpointIndex({
			checkpoints: [],
			lastSave: null,
			disk: {freeBytes: null, totalBytes: null, avgCheckpointBytes: null, savesUntilFull: null},
			search: {dirs: 12, maxDepth: 4, skipped: ['.git', '.venv'], capped: false},
		});
		const {lastFrame} = render(<CheckpointsPane {...base} index={empty} width={100} />);
		expect(expectFits(lastFrame(), 100, 8)).toEqual([
			'CHECKPOINTS 0 · no complete save yet',
			'no checkpoints yet in /runs/exp1 (searched 12 directories to depth 4; skipped .git, .venv)',
		]);
	});

	test('the first scan of the run dir still running: said, with no count and no "no checkpoints"', () => {
		const scanning = {
			...checkpointIndex({
				checkpoints: [],
				lastSave: null,
				disk: {freeBytes: null, totalBytes: null, avgCheckpointBytes: null, savesUntilFull: null},
			}),
			scanning: true as const,
		};
		const {lastFrame} = render(<CheckpointsPane {...base} index={scanning} />);
		expect(expectFits(lastFrame(), 80, 8)).toEqual(['CHECKPOINTS scanning the run dir…', 'run dir /runs/exp1']);
	});

	test('every height from 0 to 12 is respected at 40, 60, 80 and 100 columns', () => {
		const many = checkpointIndex({
			checkpoints: Array.from({length: 30}, (_, i) =>
				checkpoint(1000 * (i + 1), 300 - i, {
					status: i === 29 ? 'partial' : 'complete',
					retention: i === 0 ? 'prune-next' : 'keep',
				}),
			),
			lastSave: {time: NOW - 1_800_000, ageS: 1800, medianIntervalS: 900, periodicTime: NOW - 1_800_000, overdue: true},
		});
		for (const width of [40, 60, 80, 100]) {
			for (let height = 0; height <= 12; height++) {
				for (const status of [null, {text: 'saved checkpoint_step_30000 in 4 s', level: 'ok' as const}]) {
					const {lastFrame, unmount} = render(
						<CheckpointsPane
							{...base}
							index={many}
							status={status}
							width={width}
							height={height}
							compact={width < 90}
						/>,
					);
					const lines = expectFits(lastFrame(), width, height);
					if (height >= 3) expect(lines.some(line => line.startsWith('step 30000'))).toBe(true);
					unmount();
				}
			}
		}
	});
});
