import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {type DemoJob, startDemoJob} from '../../src/demo/job.js';
import {runCli} from '../helpers/run-cli.js';

// `traintop signal --rank` to some ranks of a torchrun-shaped job (the demo job: its ranks carry TORCHELASTIC_RUN_ID):
// a signal that makes them exit ends every rank (the elastic agent stops the rest), and the target list says so
// before anything is sent. A save, which the ranks survive, says nothing of the kind.

let dir: string;
let job: DemoJob | null = null;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-whole-job-'));
	job = await startDemoJob({runDir: dir, ranks: 2, workers: 0, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
	await job.ranksReady();
});
afterEach(async () => {
	await job?.stop();
	job = null;
	await rm(dir, {recursive: true, force: true});
});

const WARNING =
	'warning: ENDS THE WHOLE JOB: the 1 chosen rank exits, and its elastic agent (launcher.py, as torchrun) stops every rank when one fails: every one of its 2 ranks ends, not only the 1 chosen';

test('emergency to rank 0 only: the warning before the question; nothing sent without a terminal (exit 2)', async () => {
	const pick = ['--pid', String(job!.launcherPid), '--nvidia-smi', '/nonexistent'];
	const run = await runCli(['signal', 'emergency', '--rank', '0', ...pick]);
	expect(run.code, run.stderr).toBe(2);
	expect(run.stderr).toContain(WARNING);
	expect(run.stderr).toContain('no terminal to confirm on');
	const save = await runCli(['signal', 'save', '--rank', '0', ...pick]);
	expect(save.stderr).not.toContain('warning:');
	const all = await runCli(['signal', 'emergency', ...pick]);
	expect(all.stderr).not.toContain('warning:');
	// Sent (--yes): the JSON carries the fact.
	const json = await runCli(['signal', 'SIGTERM', '--rank', '1', ...pick, '--json', '--yes']);
	expect(JSON.parse(json.stdout).ends_whole_job).toEqual({
		launcher: 'elastic',
		name: 'launcher.py',
		certain: true,
		chosen: 1,
		of: 2,
	});
}, 60_000);
