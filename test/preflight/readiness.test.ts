import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {removeTempDirs, runPreflight, runPreflightJson, tempDir, unwrap, writeIn} from './run-preflight.js';
import {writeSlowSave} from './slow-save.js';

// `traintop preflight --batch-script … --run-dir …`: the readiness verdict before launch, from a real batch script
// and a real run dir whose one checkpoint was written over ~3 s (its birth and mtime that far apart), as a slow
// file system writes one. The ranks' handlers are not knowable before launch: the verdict leaves them out and says
// where they are read.

const SAVE_S = 3;
let runDir = '';
let measured = 0;

beforeAll(async () => {
	runDir = tempDir();
	measured = await writeSlowSave(runDir, 'ckpt_step100.pt', SAVE_S);
}, 60_000);

afterAll(removeTempDirs);

/** A batch script with these #SBATCH lines and this body. */
function script(directives: readonly string[], body: readonly string[]): string {
	const dir = tempDir();
	return writeIn(dir, 'job.sbatch', ['#!/bin/bash', ...directives, '', ...body, ''].join('\n'));
}

const TRAIN = ['srun python train.py'];

/** Preflight on the script and the run dir; `grace`: the --grace setting (a setting of every command that judges). */
async function judge(file: string, {grace, ...extra}: Record<string, unknown> = {}) {
	const flags = {batchScript: file, runDir, ...extra};
	const options = grace === undefined ? {} : {settings: {grace: Number(grace)}};
	const [text, json] = await Promise.all([runPreflight([], flags, options), runPreflightJson([], flags, options)]);
	return {text: unwrap(text.stdout), code: text.code, json: json.json.readiness, jsonCode: json.code};
}

describe('the lead against the saves of a previous run', () => {
	test('--signal=TERM@60 with ~3 s saves: ready, with both figures and where the handlers are read', async () => {
		const file = script(['#SBATCH --time=1:00:00', '#SBATCH --signal=TERM@60'], TRAIN);
		const {text, code, json} = await judge(file);
		expect(json.verdict).toBe('ready');
		expect(json.signal).toBe('SIGTERM');
		expect(json.lead_s).toBe(60);
		expect(json.lead_from).toBe('scheduler-warning');
		expect(json.save_s.samples).toBe(1);
		expect(json.save_s.slowest).toBe('ckpt_step100.pt');
		// The files' own span, against the writer's clock around open and close.
		expect(json.save_s.max).toBeGreaterThan(measured - 0.5);
		expect(json.save_s.max).toBeLessThanOrEqual(measured + 0.05);
		expect(json.handlers).toBeNull();
		expect(json.work_at_risk_s).toBeNull();
		expect(json.directive).toEqual({text: '#SBATCH --signal=TERM@60', line: 3});
		expect(json.reasons.map((r: {code: string}) => r.code)).toEqual(['save-time', 'lead']);
		expect(text).toMatch(/^Readiness ready: saves took up to 3(\.\d)? s; SIGTERM leaves 60 s to save$/m);
		expect(text).toContain(`\`#SBATCH --signal=TERM@60\` (${file} line 3): SIGTERM comes 60 s before the end`);
		expect(text).toContain('whether the ranks handle SIGTERM is read once they run: `traintop ranks` shows it');
		expect(text).toMatch(/^Verdict +fits; readiness ready \(exit 0\)$/m);
		expect(code).toBe(0);
	});

	test('--signal=TERM@2 with ~3 s saves: at-risk naming both numbers; exit 4 only with --fail-on-breach', async () => {
		const file = script(['#SBATCH --signal=TERM@2'], TRAIN);
		const {text, code, json} = await judge(file);
		expect(json.verdict).toBe('at-risk');
		const over = json.reasons.find((r: {code: string}) => r.code === 'save-over-lead');
		expect(over).toMatchObject({effect: 'at-risk', limit_s: 2, name: 'ckpt_step100.pt'});
		expect(over.seconds).toBeGreaterThan(2);
		expect(over.text).toMatch(
			new RegExp(
				`^\`#SBATCH --signal=TERM@2\` \\(.*job\\.sbatch line 2\\) but saves in ${runDir} took up to 3(\\.\\d)? s \\(ckpt_step100\\.pt\\): over the 2 s it leaves$`,
			),
		);
		expect(text).toContain(`Readiness at-risk: ${over.text}`);
		expect(code).toBe(0);
		const failing = await runPreflight([], {batchScript: file, runDir, failOnBreach: true});
		expect(failing.code).toBe(4);
	});

	test('no --signal: the lead is not known before launch (unknown) until --grace gives it', async () => {
		const file = script(['#SBATCH --time=1:00:00'], TRAIN);
		const bare = await judge(file);
		expect(bare.json.verdict).toBe('unknown');
		expect(bare.json.lead_s).toBeNull();
		expect(bare.json.reasons.map((r: {code: string}) => r.code)).toEqual(['save-time', 'no-deadline']);
		expect(bare.text).toMatch(/Readiness unknown: no lead known: .*job\.sbatch asks for no warning signal/);
		expect(bare.text).toContain('pass --grace SECONDS');
		const grace = await judge(file, {grace: '30'});
		expect(grace.json).toMatchObject({verdict: 'ready', lead_s: 30, lead_from: 'grace'});
		expect(grace.text).toContain('--grace gives 30 s from SIGTERM to the kill');
	});

	test('--run-dir alone: the save times, and what else to give', async () => {
		const {json} = await runPreflightJson([], {runDir});
		expect(json.readiness.verdict).toBe('unknown');
		expect(json.readiness.batch_script).toBeNull();
		expect(json.readiness.run_dir).toBe(runDir);
		expect(json.readiness.reasons[1].text).toBe('no lead known: give --batch-script FILE, or --grace SECONDS');
		// The disk check reads the same run dir.
		expect(json.disk.run_dir).toBe(runDir);
	});

	test('RUN_DIR alone keeps the report it always gave: no readiness', async () => {
		const {json} = await runPreflightJson([runDir]);
		expect(json.readiness).toBeNull();
		const text = await runPreflight([runDir]);
		expect(text.stdout).not.toContain('Readiness');
	});
});

describe("the route: the batch shell's trap and the launcher", () => {
	test('B:TERM@120 and no trap: not-ready, the ranks never get it; exit 4', async () => {
		const file = script(['#SBATCH --signal=B:TERM@120'], TRAIN);
		const {text, code, json} = await judge(file);
		expect(json.verdict).toBe('not-ready');
		expect(json.reasons[0]).toMatchObject({code: 'batch-shell-only', effect: 'not-ready', signal: 'SIGTERM'});
		expect(text).toMatch(
			/^Readiness not-ready: `#SBATCH --signal=B:TERM@120` \(.*line 2\) sends SIGTERM to the batch shell alone, and the script sets no trap for TERM that acts on it: the ranks never get it$/m,
		);
		expect(code).toBe(4);
	});

	test('B: with a trap that passes it on with kill: the lead is judged (2 s against ~3 s saves: at-risk)', async () => {
		const forwarding = [
			'trap \'kill -TERM "$child"; wait "$child"\' TERM',
			'srun python train.py &',
			'child=$!',
			'wait "$child"',
		];
		const ready = await judge(script(['#SBATCH --signal=B:TERM@120'], forwarding));
		expect(ready.json.verdict).toBe('ready');
		expect(ready.json.reasons.map((r: {code: string}) => r.code)).toEqual(['shell-forwards', 'save-time', 'lead']);
		const short = await judge(script(['#SBATCH --signal=B:TERM@2'], forwarding));
		expect(short.json.verdict).toBe('at-risk');
		expect(short.json.reasons.map((r: {code: string}) => r.code)).toContain('save-over-lead');
	});

	test("a trap set to a function the script defines is read for the function's body", async () => {
		const body = ['forward() {', '  kill -USR1 "$child"', '  wait "$child"', '}', 'trap forward USR1', ...TRAIN];
		const {json} = await judge(script(['#SBATCH --signal=B:USR1@90'], body));
		expect(json.signal).toBe('SIGUSR1');
		expect(json.reasons[0].code).toBe('shell-forwards');
	});

	test('B: with a trap that requeues: at-risk, the ranks never get it to save', async () => {
		const body = ["trap 'scontrol requeue $SLURM_JOB_ID' USR1", ...TRAIN];
		const {text, json} = await judge(script(['#SBATCH --signal=B:USR1@90'], body));
		expect(json.verdict).toBe('at-risk');
		expect(json.reasons[0]).toMatchObject({code: 'shell-trap-no-forward', name: 'requeues'});
		expect(text).toContain('its trap requeues the job: the ranks never get it to save');
	});

	test('no B:, and a trap in the script: the trap never runs (a note), the lead judged for the tasks', async () => {
		const body = ["trap 'echo got it' TERM", ...TRAIN];
		const {json} = await judge(script(['#SBATCH --signal=TERM@60'], body));
		expect(json.verdict).toBe('ready');
		expect(json.reasons[0]).toMatchObject({code: 'shell-trap-unreached', effect: 'note'});
	});

	test("torchrun on the script's command line: its 30 s cut is the lead, and its exit code noted", async () => {
		const body = ['srun torchrun --nproc-per-node 2 train.py --save-every 100'];
		const file = script(['#SBATCH --signal=TERM@60'], body);
		const {text, json} = await judge(file);
		expect(json.verdict).toBe('ready');
		expect(json.lead_s).toBe(30);
		expect(json.launcher).toEqual({name: 'torchrun', line: 4, command: body[0]});
		expect(json.reasons.find((r: {code: string}) => r.code === 'launcher-kills')).toMatchObject({
			seconds: 30,
			name: 'torchrun',
			source: expect.stringContaining('torch/distributed/elastic/multiprocessing/api.py'),
		});
		expect(json.reasons.find((r: {code: string}) => r.code === 'launcher-exit-code')).toMatchObject({exit_code: 1});
		expect(text).toContain('SIGTERM comes 60 s before the end; torchrun leaves the ranks 30 s of it');
		expect(text).toContain(`torchrun (${file} line 4) passes SIGTERM on, then SIGKILLs ranks still running 30 s later`);
		// `python -m torch.distributed.run` is the same launcher.
		const module = await judge(script(['#SBATCH --signal=TERM@60'], ['srun python -m torch.distributed.run train.py']));
		expect(module.json.lead_s).toBe(30);
	});
});

describe('bad input names the flag, the path and the rule: exit 2', () => {
	test.each([
		[
			{batchScript: '/nonexistent/traintop/job.sbatch'},
			/^traintop: --batch-script \/nonexistent\/traintop\/job\.sbatch: no such file$/m,
		],
		[
			{batchScript: '/tmp'},
			/^traintop: --batch-script \/tmp: a directory, not a regular file \(a batch script is read only/,
		],
		[{runDir: '/nonexistent/traintop/run'}, /^traintop: --run-dir \/nonexistent\/traintop\/run: no such directory$/m],
	])('%o', async (flags, message) => {
		const run = await runPreflight([], flags);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(message);
		expect(run.stdout).toBe('');
	});

	test('a --signal sbatch would refuse: the script, the line and the rule', async () => {
		const malformed = script(['#SBATCH --job-name=x', '#SBATCH --signal=TERM@soon'], TRAIN);
		const run = await runPreflight([], {batchScript: malformed});
		expect(run.code).toBe(2);
		expect(run.stderr).toBe(
			`traintop: --batch-script ${malformed} line 3: --signal=TERM@soon: not [{R|B}:]SIG[@TIME]\n`,
		);
		const unknown = script(['#SBATCH --signal=FOO@60'], TRAIN);
		const second = await runPreflight([], {batchScript: unknown});
		expect(second.stderr).toBe(`traintop: --batch-script ${unknown} line 2: --signal=FOO@60: FOO is not a signal\n`);
	});

	test('RUN_DIR and --run-dir naming two dirs', async () => {
		const run = await runPreflight([path.join(runDir, 'checkpoints')], {runDir});
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(/name two run dirs: give one/);
	});
});
