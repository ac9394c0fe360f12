import {describe, expect, test} from 'vitest';
import type {Job, LauncherProcess, SignalState} from '../../src/core/types.js';
import {checkedWireValue} from '../../src/agent/wire-values.js';
import {judgeReadiness} from '../../src/core/readiness.js';
import {launcherFacts, launcherFromCommand} from '../../src/ranks/launcher-traps.js';
import {job as jobOf} from '../core/job-data.js';

// What each launcher does with a signal, as its code says (docs/launchers.md): torch 1.13 to main
// torch/distributed/elastic/multiprocessing/api.py and torch/distributed/run.py (pytorch 0580428), DeepSpeed 0.16.5
// deepspeed/launcher/launch.py, accelerate 1.15.0.dev0 commands/launch.py. The real torchrun's facts, read from /proc,
// are in launcher-real.test.ts.

const TORCH = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];
const TORCH_READS = ['TORCH_ELASTIC_SHUTDOWN_TIMEOUT', 'PET_SHUTDOWN_TIMEOUT', 'PET_SIGNALS_TO_HANDLE'];

const state = (disposition: SignalState['disposition']): SignalState => ({
	disposition,
	blocked: false,
	pending: false,
	terminatesByDefault: true,
});

/** A job of no ranks under this launcher (test/core/job-data.ts's torchrun job otherwise). */
function job(launcher: LauncherProcess | null, identity: Job['identity'] = 'elastic'): Job {
	return {...jobOf('j', 0), identity, launcher};
}

describe('torch elastic agent', () => {
	test('defaults: the four signals, 30 s, exit 1, whatever the way it is started', () => {
		for (const line of [
			'torchrun --nproc_per_node 2 train.py',
			'python -m torch.distributed.run --nproc_per_node 2 train.py',
			'python -m torch.distributed.launch --use_env train.py',
		])
			expect(launcherFromCommand(line)).toMatchObject({forwards: TORCH, killAfterS: 30, exitCode: 1});
	});

	test('--signals-to-handle and --shutdown-timeout before the script (a newer torch); after it they are the script’s', () => {
		expect(
			launcherFromCommand('torchrun --signals-to-handle=SIGTERM,SIGUSR1,TERM --shutdown_timeout 300 --standalone t.py'),
		).toMatchObject({forwards: ['SIGTERM', 'SIGUSR1'], killAfterS: 300});
		expect(launcherFromCommand('torchrun t.py --shutdown-timeout 300')).toMatchObject({killAfterS: 30});
	});

	test("the running agent's variables: as its torch reads them, or only where shorter than 30 s when not known", () => {
		const agent = (variables: Record<string, string>, reads?: string[]) =>
			launcherFacts(job({pid: 7, startTime: 1, cmd: 'torchrun t.py', variables, ...(reads ? {reads} : {})}));
		const long = {TORCH_ELASTIC_SHUTDOWN_TIMEOUT: '600'};
		expect(agent(long, ['TORCH_ELASTIC_SHUTDOWN_TIMEOUT'])?.killAfterS).toBe(600);
		const ignored = agent({TORCH_ELASTIC_SHUTDOWN_TIMEOUT: '10'}, []);
		expect(ignored?.killAfterS).toBe(30);
		expect(ignored?.source).toContain('this torch does not read TORCH_ELASTIC_SHUTDOWN_TIMEOUT');
		expect(agent(long)?.killAfterS).toBe(30);
		expect(agent({PET_SHUTDOWN_TIMEOUT: '45', TORCH_ELASTIC_SHUTDOWN_TIMEOUT: '600'}, TORCH_READS)?.killAfterS).toBe(
			45,
		);
	});

	test('before launch, a variable counts only where shorter than 30 s: an older torch ignores it', () => {
		expect(launcherFromCommand('TORCH_ELASTIC_SHUTDOWN_TIMEOUT=600 torchrun t.py')?.killAfterS).toBe(30);
		expect(launcherFromCommand('PET_SHUTDOWN_TIMEOUT=10 torchrun t.py')?.killAfterS).toBe(10);
		expect(launcherFromCommand('PET_SHUTDOWN_TIMEOUT=10 torchrun --shutdown-timeout 90 t.py')?.killAfterS).toBe(90);
	});

	test('the running agent: its own dispositions decide what it passes on now', () => {
		const cmd = '/usr/bin/python3 -m torch.distributed.run --nproc_per_node 2 train.py';
		const before = launcherFacts(job({pid: 7, startTime: 1, cmd, signals: {SIGTERM: state('default')}}));
		// Before PContext.start() installs the handlers: SIGTERM would end the agent itself.
		expect(before).toMatchObject({name: 'torchrun', pid: 7, signals: {SIGTERM: 'default'}});
		expect(before?.forwards).not.toContain('SIGTERM');
		const running = launcherFacts(
			job({
				pid: 7,
				startTime: 1,
				cmd,
				signals: {SIGTERM: state('handled'), SIGUSR1: state('handled'), SIGUSR2: state('default')},
				variables: {PET_SIGNALS_TO_HANDLE: 'SIGUSR1'},
			}),
		);
		// The variable's list on a torch that reads it (USR1 handled) or not (TERM still handled): both are passed on.
		expect(running?.forwards).toEqual(expect.arrayContaining(['SIGTERM', 'SIGUSR1']));
		expect(running?.forwards).not.toContain('SIGUSR2');
	});

	test("an agent's malformed dispositions and variables are not read", () => {
		const facts = launcherFacts(
			job({
				pid: 7,
				startTime: 1,
				cmd: 'torchrun t.py',
				signals: {SIGTERM: {disposition: 'weird'}} as never,
				variables: {TORCH_ELASTIC_SHUTDOWN_TIMEOUT: 5} as never,
			}),
		);
		expect(facts).toMatchObject({forwards: TORCH, killAfterS: 30, signals: {}});
	});
});

describe('other launchers', () => {
	test("DeepSpeed's per-node launcher, running; its elastic mode is not read", () => {
		const cmd = '/usr/bin/python -u -m deepspeed.launcher.launch --world_info=e30= --master_port=29500 train.py';
		expect(launcherFacts(job({pid: 9, startTime: 1, cmd}, 'rendezvous'))).toMatchObject({
			name: 'deepspeed',
			pid: 9,
			forwards: ['SIGTERM', 'SIGINT'],
			killAfterS: 30,
			exitCode: 1,
		});
		expect(launcherFacts(job({pid: 9, startTime: 1, cmd: `${cmd} --enable_elastic_training`}, 'launcher'))).toBeNull();
		// The runner over several nodes starts it through another program; on one node, under it.
		expect(launcherFromCommand('deepspeed --hostfile hosts train.py')).toBeNull();
		expect(launcherFromCommand('deepspeed --num_nodes=2 train.py')).toBeNull();
		expect(launcherFromCommand('deepspeed --include worker-1@worker-2 train.py')).toBeNull();
		expect(launcherFromCommand('deepspeed --hostfile hosts --num_nodes 1 train.py')?.name).toBe('deepspeed');
		expect(launcherFromCommand('deepspeed --include localhost:0,1 train.py')?.name).toBe('deepspeed');
		expect(launcherFromCommand('deepspeed --no_ssh --node_rank 0 --hostfile hosts train.py')?.name).toBe('deepspeed');
	});

	test('accelerate: the torch agent when proven (or named on the line), else its single-process launch', () => {
		const cmd = '/usr/bin/python3 /usr/local/bin/accelerate launch train.py';
		expect(launcherFacts(job({pid: 3, startTime: 1, cmd}, 'elastic'))).toMatchObject({
			name: 'accelerate launch',
			forwards: TORCH,
			killAfterS: 30,
			exitCode: 1,
		});
		expect(launcherFacts(job({pid: 3, startTime: 1, cmd}, 'launcher'))).toMatchObject({
			forwards: [],
			killAfterS: null,
			exitCode: 1,
		});
		expect(launcherFromCommand('accelerate launch --multi_gpu --num_processes 2 train.py')?.forwards).toEqual(TORCH);
		// Its config file decides: the line alone cannot tell.
		expect(launcherFromCommand('accelerate launch train.py')).toBeNull();
		expect(launcherFromCommand('accelerate launch --tpu train.py')).toBeNull();
	});

	test('no launcher, or one not read: null', () => {
		expect(launcherFacts(job(null))).toBeNull();
		expect(launcherFacts(job({pid: 1, startTime: 1, cmd: 'mpirun -np 2 python train.py'}, 'launcher'))).toBeNull();
		expect(launcherFacts(job({pid: 1, startTime: 1, cmd: '/bin/bash ./run.sh'}, 'launcher'))).toBeNull();
	});
});

test('torch.distributed.launch without the agent (before torch 1.9, a Popen loop): not read', () => {
	const cmd = '/usr/bin/python -m torch.distributed.launch --nproc_per_node 2 train.py';
	expect(launcherFacts(job({pid: 4, startTime: 1, cmd}, 'elastic'))?.name).toBe('torch.distributed.launch');
	expect(launcherFacts(job({pid: 4, startTime: 1, cmd}, 'rendezvous'))).toBeNull();
});

describe('the judgement reads the launcher’s facts', () => {
	const judge = (launcher: LauncherProcess, leadS: number) =>
		judgeReadiness({
			job: job(launcher),
			path: {signal: 'SIGTERM', leadS, leadFrom: 'grace', target: 'tasks', shellTrap: null},
			launcher: launcherFacts(job(launcher)),
			saves: null,
			lastSaveAt: null,
			savesNeverComplete: false,
			maxWorkAtRiskS: null,
			now: 0,
		});
	const cmd = 'torchrun --nproc_per_node 2 train.py';

	test('an agent that handles SIGTERM passes it on and cuts the lead to its 30 s', () => {
		const readiness = judge({pid: 5, startTime: 1, cmd, signals: {SIGTERM: state('handled')}}, 120);
		expect(readiness.leadS).toBe(30);
		expect(readiness.reasons.map(r => r.code)).toEqual(
			expect.arrayContaining(['launcher-kills', 'launcher-exit-code']),
		);
	});

	test('an agent without its handler dies of SIGTERM: at risk', () => {
		const readiness = judge({pid: 5, startTime: 1, cmd, signals: {SIGTERM: state('default')}}, 120);
		expect(readiness.reasons).toContainEqual(
			expect.objectContaining({code: 'launcher-dies', effect: 'at-risk', name: 'torchrun', pid: 5}),
		);
		expect(readiness.leadS).toBe(120);
	});
});

test("a launcher's new fields from an agent: the wire's value check makes them printable, the table reads only well-formed ones", () => {
	const sent = {
		pid: 8,
		startTime: 1,
		cmd: 'torchrun t.py',
		signals: {SIGTERM: {...state('handled'), disposition: 'handled'}, SIGUSR1: {disposition: '\u001b]0;x\u0007'}},
		variables: {TORCH_ELASTIC_SHUTDOWN_TIMEOUT: '\u001b[2J600'},
		reads: ['TORCH_ELASTIC_SHUTDOWN_TIMEOUT', 7],
	};
	const checked = checkedWireValue(JSON.parse(JSON.stringify(sent)));
	expect(checked.ok).toBe(true);
	const launcher = (checked as {value: LauncherProcess}).value;
	expect(JSON.stringify(launcher)).not.toContain('\u001b');
	const facts = launcherFacts(job(launcher));
	// The timeout that is not a number is not one; the disposition that is not one is left out.
	expect(facts).toMatchObject({killAfterS: 30, signals: {SIGTERM: 'handled'}});
	expect(facts?.signals).not.toHaveProperty('SIGUSR1');
});
