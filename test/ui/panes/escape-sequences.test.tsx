import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {cleanup, render} from 'ink-testing-library';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import AlertsPane from '../../../src/ui/panes/AlertsPane.js';
import CheckpointsPane from '../../../src/ui/panes/CheckpointsPane.js';
import MemoryPane, {type Props as MemoryProps} from '../../../src/ui/panes/MemoryPane.js';
import RanksPane, {type Props as RanksProps} from '../../../src/ui/panes/RanksPane.js';
import type {JobEvent} from '../../../src/core/types.js';
import {job, jobSet, NOW, rank, rankSet} from '../fixtures.js';
import {hostMemory} from '../../helpers/snapshots.js';

// The TUI's panes render text from outside with its control characters shown as escapes: the frame Ink writes
// holds no ESC or BEL that came from a checkpoint's name, nvidia-smi, a rank's argv or an event.

const PWNED = '\u001b]0;PWNED\u0007';
const SHOWN = '\\e]0;PWNED\\x07';

/** The ranks pane, 200 × 8, the cursor on its first row and nothing marked. */
const ranksPane = (ranks: RanksProps['ranks'], error: string | null) =>
	render(
		<RanksPane
			ranks={ranks}
			error={error}
			cursor={0}
			marked={new Set()}
			width={200}
			height={8}
			now={NOW}
			compact={false}
		/>,
	);

let dir = '';
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-escapes-tui-'));
});
afterEach(async () => {
	cleanup();
	await rm(dir, {recursive: true, force: true});
});

function expectInert(frame: string | undefined): void {
	expect(frame).toContain(SHOWN);
	expect(frame).not.toContain('\u001b');
	expect(frame).not.toContain('\u0007');
}

describe('escape sequences in the TUI', () => {
	test('a real checkpoint dir named with an OSC sequence: the checkpoints pane shows it escaped', async () => {
		await mkdir(path.join(dir, `ckpt-200${PWNED}`));
		await writeFile(path.join(dir, `ckpt-200${PWNED}`, 'model.pt'), 'x');
		const index = buildIndex(await scanRunDir(dir), {keep: null, now: NOW, disk: null});
		expect(index.checkpoints).toHaveLength(1);
		const {lastFrame} = render(<CheckpointsPane index={index} now={NOW} width={120} height={6} compact={false} />);
		expectInert(lastFrame());
	});

	test("nvidia-smi's error message and warning in the memory pane", () => {
		const props: MemoryProps = {
			host: 'node1',
			memory: hostMemory(50, 0),
			memoryError: null,
			gpu: {status: 'error', message: `exit 9: failed${PWNED}`, retryAt: NOW + 5000},
			metrics: {},
			now: NOW,
			width: 100,
			height: 8,
		};
		expectInert(render(<MemoryPane {...props} />).lastFrame());
		cleanup();
		const warned = render(
			<MemoryPane {...props} gpu={{status: 'ok', gpus: [], sampledAt: NOW, warning: `infoROM${PWNED}`}} />,
		);
		expectInert(warned.lastFrame());
	});

	test("a rank's command line in the ranks pane, and an event's text in the alerts pane", () => {
		const ranks = rankSet(1, {}, () => ({cmd: `python3 train.py --name x${PWNED}`}));
		const shown = ranksPane(ranks, null);
		expectInert(shown.lastFrame());
		const event: JobEvent = {
			time: NOW - 60_000,
			kind: 'job-ended',
			job: `torchrun:4200${PWNED}`,
			rank: null,
			pid: null,
			level: 'warn',
			text: `job torchrun:4200 ended: ckpt${PWNED}`,
		};
		const alerts = render(<AlertsPane alerts={[]} events={[event]} now={NOW} width={100} height={5} />);
		expectInert(alerts.lastFrame());
	});

	test("a job id, SLURM job id and working dir from the ranks' environment, in the ranks pane's title and headers", () => {
		// One job (its words in the pane's title), then two (a header line each).
		const hostile = (id: string, pid: number) =>
			job(`slurm:${id}${PWNED}`, [rank(0, {pid})], {
				cwd: `/runs/x${PWNED}`,
				task: {scheduler: 'slurm', jobId: `${id}${PWNED}`, stepId: null, restartCount: 0, taskId: 0},
			});
		for (const set of [jobSet([hostile('9', 100)]), jobSet([hostile('9', 100), hostile('10', 200)])]) {
			const shown = ranksPane(set, `scan of /proc/1${PWNED} failed`);
			const frame = shown.lastFrame();
			expectInert(frame);
			expect(frame).toContain(`slurm:9${SHOWN}`);
			cleanup();
		}
	});
});
