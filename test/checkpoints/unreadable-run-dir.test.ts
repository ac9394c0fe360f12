import {chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {startCli, type CliRun} from '../helpers/run-cli.js';

// A run dir the user may not read (another user's job, mode 700), watched by a real non-root traintop (`nobody`).
// Before, the monitor died at start of an uncaught `EACCES: permission denied, watch` from dir-watch.js. Now it says
// the run dir cannot be read, keeps monitoring, and watches the dir once a chmod lets it read it.

const ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

let base = '';
let run: CliRun | null = null;
beforeEach(() => {
	base = mkdtempSync(path.join(tmpdir(), 'traintop-unreadable-'));
	chmodSync(base, 0o755);
});
afterEach(() => {
	run?.child.kill('SIGKILL');
	run = null;
	rmSync(base, {recursive: true, force: true});
});

/** A finished Hugging Face save: its model, then trainer_state.json last. */
function hfSave(runDir: string, step: number): void {
	const dir = path.join(runDir, `checkpoint-${step}`);
	mkdirSync(dir);
	writeFileSync(path.join(dir, 'model.safetensors'), 'x'.repeat(100));
	writeFileSync(path.join(dir, 'trainer_state.json'), JSON.stringify({global_step: step, epoch: 1, log_history: []}));
}

test.skipIf(!ROOT)(
	'an unreadable run dir is said, the monitor keeps running, and the dir is watched once it can be read',
	{timeout: 90_000},
	async () => {
		const runDir = path.join(base, 'run');
		mkdirSync(runDir, {mode: 0o700});
		hfSave(runDir, 100);
		const cli = startCli(
			[
				'--headless',
				runDir,
				'--no-log',
				'--nvidia-smi',
				'/nonexistent/nvidia-smi',
				'--interval',
				'0.2',
				'--log-interval',
				'0.4',
			],
			{uid: NOBODY, cwd: base},
		);
		run = cli;
		await cli.waitFor(
			({stderr}) =>
				stderr.includes(
					`WARN run dir ${runDir} cannot be read (EACCES: permission denied): its checkpoints are not watched until it can be`,
				),
			30_000,
		);
		// Still monitoring: status lines keep coming.
		const lines = () =>
			cli
				.stdout()
				.split('\n')
				.filter(line => line.includes(' ram ')).length;
		const seen = lines();
		await cli.waitFor(() => lines() >= seen + 2, 30_000);
		chmodSync(runDir, 0o755);
		await cli.waitFor(({stderr}) => stderr.includes(`run dir ${runDir} can be read now: watching it`), 30_000);
		// Watched now: a new save is seen (the one there before is not reported as new).
		hfSave(runDir, 200);
		await cli.waitFor(({stderr}) => stderr.includes('saved checkpoint-200'), 30_000);
		expect(cli.stderr()).not.toContain('saved checkpoint-100');
		cli.child.kill('SIGTERM');
		expect(await cli.exited).toBe(0);
		expect(cli.stderr()).not.toMatch(/EACCES: permission denied, watch|\n\s+at /);
	},
);
