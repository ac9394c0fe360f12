import {describe, expect, it} from 'vitest';
import type {Job, SignalState} from '../../src/core/types.js';
import type {ForwarderTarget} from '../../src/ranks/send.js';
import {pickJob} from '../../src/slurm/job-record.js';
import {parseScontrolJobs} from '../../src/slurm/parse-scontrol-job.js';
import {parseScontrolSteps} from '../../src/slurm/parse-steps.js';
import {type JobFacts, parseListPids, taskSteps} from '../../src/slurm/signal-facts.js';
import {chooseRoute, type RouteInput} from '../../src/slurm/signal-route.js';
import {findTrap} from '../../src/slurm/signal-trap.js';

// The signal routes' parsers, on outputs recorded from the one-node SLURM 22.05.8 (Debian slurm-wlm) while a batch
// job ran 2 demo ranks as one srun step, and the route decision on the facts they give.

const SHOW_JOB =
	'JobId=7 JobName=job2.sh UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901753 Nice=0 Account=(null) QOS=(null) JobState=RUNNING Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:02:46 TimeLimit=00:05:00 TimeMin=N/A SubmitTime=2026-11-24T08:46:59 EligibleTime=2026-11-24T08:46:59 AccrueTime=2026-11-24T08:46:59 StartTime=2026-11-24T08:46:59 EndTime=2026-11-24T08:51:59 Deadline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-24T08:46:59 Scheduler=Main Partition=debug AllocNode:Sid=localhost:5433 ReqNodeList=(null) ExcNodeList=(null) NodeList=vm BatchHost=vm NumNodes=1 NumCPUs=2 NumTasks=2 CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cpu=2,node=1,billing=2 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null) Command=/tmp/h14b/job2.sh WorkDir=/tmp/h14b StdErr=/tmp/h14b/out-7.txt StdIn=/dev/null StdOut=/tmp/h14b/out-7.txt Power= \n';
const SHOW_STEPS = [
	'StepId=7.batch UserId=0 StartTime=2026-11-24T08:46:59 TimeLimit=UNLIMITED State=RUNNING Partition=debug NodeList=vm Nodes=1 CPUs=0 Tasks=1 Name=batch Network=(null) TRES=(null) ResvPorts=(null) CPUFreqReq=Default SrunHost:Pid=(null):0',
	'StepId=7.0 UserId=0 StartTime=2026-11-24T08:46:59 TimeLimit=UNLIMITED State=RUNNING Partition=debug NodeList=vm Nodes=1 CPUs=2 Tasks=2 Name=bash Network=(null) TRES=cpu=2,mem=0,node=1 ResvPorts=(null) CPUFreqReq=Default Dist=Block SrunHost:Pid=vm:25505',
	'',
].join('\n');
const LISTPIDS = [
	'PID      JOBID    STEPID   LOCALID GLOBALID',
	'25504    7        batch    0       0       ',
	'25508    7        batch    -       -       ',
	'25505    7        batch    -       -       ',
	'25520    7        0        0       0       ',
	'25521    7        0        1       1       ',
	'',
].join('\n');

describe('scontrol parsers (recorded SLURM 22.05.8 output)', () => {
	it("reads the job's state and batch host (the job reader's own parser)", () => {
		expect(pickJob(parseScontrolJobs(SHOW_JOB), '7')).toMatchObject({jobId: '7', state: 'RUNNING', batchHost: 'vm'});
		expect(parseScontrolJobs('')).toEqual([]);
	});
	it('reads every step with its srun host and pid (none for the batch step); the routes keep the task steps', () => {
		const steps = parseScontrolSteps(SHOW_STEPS, ['7']);
		expect(steps.map(step => [step.id, step.srun])).toEqual([
			['7.batch', null],
			['7.0', {host: 'vm', pid: 25505}],
		]);
		expect(taskSteps(steps)).toEqual([{id: '7.0', state: 'RUNNING', tasks: 2, srun: {host: 'vm', pid: 25505}}]);
	});
	it('reads listpids: the batch shell is LOCALID 0 of the batch step; tasks are the other steps', () => {
		const pids = parseListPids(LISTPIDS);
		expect(pids.batchShell).toBe(25504);
		expect([...pids.tasks].sort()).toEqual([25520, 25521]);
		expect([...pids.byStep]).toEqual([
			[
				'0',
				[
					{pid: 25520, task: 0},
					{pid: 25521, task: 1},
				],
			],
		]);
	});
});

describe('the batch script trap', () => {
	it('finds the last trap of the signal, by name, SIG name or number, and what it likely does', () => {
		const script =
			"#!/bin/bash\n#SBATCH --signal=B:USR1@60\ntrap 'echo hi' USR1\ntrap 'scontrol requeue $SLURM_JOB_ID' SIGUSR1 TERM\nsrun x &\nwait\n";
		expect(findTrap(script, 'SIGUSR1', 10)).toEqual({
			command: 'scontrol requeue $SLURM_JOB_ID',
			effect: 'requeues the job: its steps are killed and it starts again',
		});
		expect(findTrap('trap "kill -TERM $PID" 15\n', 'SIGTERM', 15)?.effect).toMatch(/^forwards the signal/);
		expect(findTrap("# trap 'x' USR1\ntrap 'y' USR2\n", 'SIGUSR1', 10)).toBeNull();
	});
});

describe('the route', () => {
	const facts: JobFacts = {
		jobId: '7',
		state: 'RUNNING',
		batchHost: 'vm',
		steps: taskSteps(parseScontrolSteps(SHOW_STEPS, ['7'])),
	};
	const rank = (n: number) => ({rank: n, pid: 25520 + n}) as unknown as Job['ranks'][number];
	const job = (ranks: number[]) => ({id: 'slurm:7.0', ranks: ranks.map(rank)}) as unknown as Job;
	const srun: ForwarderTarget = {pid: 25505, startTime: 1, program: 'srun', jobId: '7', label: 'step 7.0'};
	const handled: SignalState = {disposition: 'handled', blocked: false, pending: false, terminatesByDefault: true};
	const base: RouteInput = {
		jobId: '7',
		signal: 'SIGUSR1',
		batch: false,
		localJobs: [],
		facts,
		forwarders: new Map(),
		batchShell: null,
		trap: null,
	};
	it('local when every task is a rank here; srun when some are not and its srun is here; else scancel', () => {
		expect(chooseRoute({...base, localJobs: [job([0, 1])]}).kind).toBe('local');
		expect(chooseRoute({...base, localJobs: [job([0])], forwarders: new Map([['7.0', srun]])}).kind).toBe('srun');
		expect(chooseRoute({...base, localJobs: [job([0])]})).toMatchObject({kind: 'scancel', target: 'steps'});
		expect(chooseRoute(base)).toMatchObject({kind: 'scancel', target: 'steps'});
	});
	it('refuses a job with no running step, and says when the controller did not answer', () => {
		expect(chooseRoute({...base, facts: {...facts, state: 'PENDING', steps: []}})).toEqual({
			kind: 'refused',
			why: 'job 7 (PENDING) has no running step to signal',
		});
		expect(chooseRoute({...base, facts: {problem: 'scontrol got no answer'}})).toEqual({
			kind: 'refused',
			why: 'scontrol got no answer',
		});
		expect(chooseRoute({...base, localJobs: [job([0, 1])], facts: {problem: 'scontrol got no answer'}}).kind).toBe(
			'local',
		);
	});
	it('--batch only where the batch shell handles the signal (here: its disposition; elsewhere: its trap)', () => {
		const batch = {...base, batch: true};
		expect(chooseRoute({...batch, batchShell: handled})).toMatchObject({kind: 'scancel', target: 'batch'});
		expect(chooseRoute({...batch, batchShell: {...handled, disposition: 'default'}})).toEqual({
			kind: 'refused',
			why: 'the batch shell has no handler for SIGUSR1: it would die and take the job down',
		});
		expect(chooseRoute({...batch, trap: {command: 'scontrol requeue 7', effect: 'requeues'}})).toMatchObject({
			kind: 'scancel',
			target: 'batch',
		});
		expect(chooseRoute({...batch, trap: null}).kind).toBe('refused');
		expect(chooseRoute({...batch, trap: undefined})).toMatchObject({kind: 'refused', why: /cannot tell whether/});
	});
});
