import {execFileSync, spawnSync} from 'node:child_process';
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import {createServer} from 'node:net';
import {hostname, tmpdir} from 'node:os';
import path from 'node:path';
import {until} from './until.js';

// A real one-node SLURM for the tests: munged with a generated key, slurmctld and slurmd on free ports, all state in
// a temporary directory, nothing in /etc. Each test file that needs SLURM starts its own (about 3 s) and stops it
// after. Needs root (slurmd runs job steps as their user) and Debian's slurm-wlm and munge, which .ci/run installs;
// elsewhere slurmUnavailable() says why and the SLURM tests are skipped with that reason.

const DAEMONS = ['munged', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'scontrol', 'scancel'];

/** Why a real SLURM cannot be started here, or null when it can. */
export function slurmUnavailable(): string | null {
	if (process.getuid?.() !== 0) return 'SLURM tests need root (slurmd runs job steps as their user)';
	const missing = DAEMONS.filter(name => spawnSync('sh', ['-c', `command -v ${name}`]).status !== 0);
	if (missing.length > 0) return `SLURM tests need ${missing.join(', ')} (apt-get install slurm-wlm munge)`;
	return null;
}

export interface SlurmCluster {
	/** The temporary directory holding the config, state, logs and munge socket. */
	readonly dir: string;
	/** The node's name (this host's short name). */
	readonly node: string;
	/** process.env plus SLURM_CONF: what every SLURM command (and traintop, to find the controller) needs. */
	readonly env: NodeJS.ProcessEnv;
	/** Runs a SLURM command (squeue, scontrol…) against this cluster; its stdout. Throws on a non-zero exit. */
	run(command: string, args: readonly string[]): string;
	/** Submits a batch script (its text); the job id. */
	sbatch(script: string, args?: readonly string[]): number;
	/** `scontrol show job J` as key → value. */
	job(id: number): Record<string, string>;
	stop(): Promise<void>;
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address !== null ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

function config(dir: string, node: string, ports: {ctld: number; slurmd: number}, firstJobId: number): string {
	const cpus = Math.max(2, Number(execFileSync('nproc', {encoding: 'utf8'}).trim()));
	return [
		'ClusterName=traintop',
		// Test files start clusters side by side on one host: each numbers its jobs from its own base, so two
		// clusters' job 1 never meet in /proc (a rank carries only SLURM_JOB_ID, not its cluster).
		`FirstJobId=${firstJobId}`,
		`SlurmctldHost=${node}(127.0.0.1)`,
		`SlurmctldPort=${ports.ctld}`,
		`SlurmdPort=${ports.slurmd}`,
		'AuthType=auth/munge',
		`AuthInfo=socket=${dir}/munge/socket`,
		'CryptoType=crypto/munge',
		'SlurmUser=root',
		'SlurmdUser=root',
		`StateSaveLocation=${dir}/state`,
		`SlurmdSpoolDir=${dir}/spool`,
		`SlurmctldPidFile=${dir}/slurmctld.pid`,
		`SlurmdPidFile=${dir}/slurmd.pid`,
		`SlurmctldLogFile=${dir}/log/slurmctld.log`,
		`SlurmdLogFile=${dir}/log/slurmd.log`,
		// No cgroups: the test machine may not delegate them; linuxproc tracks a step's processes by parentage.
		'ProctrackType=proctrack/linuxproc',
		'TaskPlugin=task/none',
		'SwitchType=switch/none',
		'MpiDefault=none',
		'SchedulerType=sched/builtin',
		'SelectType=select/cons_tres',
		'SelectTypeParameters=CR_Core',
		'ReturnToService=2',
		'JobCompType=jobcomp/none',
		'AccountingStorageType=accounting_storage/none',
		'JobAcctGatherType=jobacct_gather/none',
		// Finished jobs stay visible to squeue/scontrol for a while (a test reads their final state).
		'MinJobAge=300',
		'KillWait=5',
		'InactiveLimit=0',
		`NodeName=${node} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=2000 State=UNKNOWN`,
		'PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES',
		'',
	].join('\n');
}

/**
 * Processes this cluster left behind: its slurmstepds (their working directory is the cluster's log dir) and
 * the jobs' tasks (SLURM_CONF in their environment names this cluster's config). Cancelled jobs end by themselves;
 * these are what a killed controller or slurmd leaves. Never the test process itself.
 */
function leftovers(dir: string, conf: string): number[] {
	const pids: number[] = [];
	for (const name of readdirSync('/proc')) {
		const pid = Number(name);
		if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
		try {
			const cwd = readlinkSync(`/proc/${pid}/cwd`);
			const mine =
				cwd.startsWith(dir) ||
				readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`SLURM_CONF=${conf}`);
			if (mine) pids.push(pid);
		} catch {
			// gone, or not ours to read
		}
	}
	return pids;
}

function pidIn(file: string): number | null {
	try {
		const pid = Number(readFileSync(file, 'utf8').trim());
		return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
	} catch {
		return null;
	}
}

function kill(pid: number | null): void {
	if (pid === null) return;
	try {
		process.kill(pid, 'SIGTERM');
	} catch {
		// already gone
	}
}

/** Starts munged, slurmctld and slurmd; resolves once the node is idle. Call slurmUnavailable() first. */
export async function startSlurm(): Promise<SlurmCluster> {
	const dir = mkdtempSync(path.join(tmpdir(), 'traintop-slurm-'));
	for (const sub of ['munge', 'state', 'spool', 'log']) mkdirSync(path.join(dir, sub));
	chmodSync(path.join(dir, 'munge'), 0o700);
	const key = path.join(dir, 'munge/munge.key');
	writeFileSync(key, Buffer.from(Array.from({length: 1024}, () => Math.floor(Math.random() * 256))), {mode: 0o600});
	const node = hostname().split('.')[0] ?? 'localhost';
	const ports = {ctld: await freePort(), slurmd: await freePort()};
	const conf = path.join(dir, 'slurm.conf');
	// The port is unique on this host while the cluster runs: its job ids are too.
	writeFileSync(conf, config(dir, node, ports, ports.ctld * 100));
	const env = {...process.env, SLURM_CONF: conf};
	const munge = [`--socket=${dir}/munge/socket`, `--key-file=${key}`, `--pid-file=${dir}/munge/pid`];
	const mungeFiles = [`--log-file=${dir}/log/munged.log`, `--seed-file=${dir}/munge/seed`];
	execFileSync('munged', ['--force', ...munge, ...mungeFiles], {env});
	// -i: ignore any state from an earlier run (there is none in a fresh dir; it also skips a prompt-free recovery).
	execFileSync('slurmctld', ['-i'], {env});
	execFileSync('slurmd', [], {env});

	const run = (command: string, args: readonly string[]): string =>
		execFileSync(command, [...args], {env, encoding: 'utf8', timeout: 20_000});
	const cluster: SlurmCluster = {
		dir,
		node,
		env,
		run,
		sbatch(script, args = []) {
			const file = path.join(dir, `job-${Date.now()}-${Math.random().toString(36).slice(2)}.sh`);
			writeFileSync(file, script, {mode: 0o755});
			const out = run('sbatch', ['--parsable', ...args, file]);
			return Number(out.trim().split(';')[0]);
		},
		job(id) {
			const text = run('scontrol', ['show', 'job', '-o', String(id)]);
			const fields: Record<string, string> = {};
			for (const match of text.matchAll(/(\S+?)=(\S*)/g)) fields[match[1] ?? ''] = match[2] ?? '';
			return fields;
		},
		async stop() {
			spawnSync('scancel', ['--full', '--signal=KILL', `--nodelist=${node}`], {env});
			kill(pidIn(path.join(dir, 'slurmd.pid')));
			kill(pidIn(path.join(dir, 'slurmctld.pid')));
			spawnSync('munged', ['--stop', `--socket=${dir}/munge/socket`], {env});
			for (const pid of leftovers(dir, conf)) {
				try {
					process.kill(pid, 'SIGKILL');
				} catch {
					// already gone
				}
			}
			const gone = (file: string) => {
				const pid = pidIn(file);
				if (pid === null) return true;
				try {
					process.kill(pid, 0);
					return false;
				} catch {
					return true;
				}
			};
			await until(
				() => ['slurmd.pid', 'slurmctld.pid'].every(file => gone(path.join(dir, file))),
				Boolean,
				'the SLURM daemons to stop',
				10_000,
			);
			rmSync(dir, {recursive: true, force: true});
		},
	};
	try {
		await until(
			() => {
				const result = spawnSync('sinfo', ['-h', '-o', '%T'], {env, encoding: 'utf8', timeout: 5000});
				return result.status === 0 ? result.stdout.trim() : '';
			},
			state => state === 'idle',
			'the SLURM node to come up idle',
			60_000,
		);
	} catch (caught) {
		const logs = ['slurmctld.log', 'slurmd.log']
			.map(name => path.join(dir, 'log', name))
			.filter(existsSync)
			.map(file => `${path.basename(file)}:\n${readFileSync(file, 'utf8').split('\n').slice(-15).join('\n')}`);
		await cluster.stop();
		throw new Error(`${(caught as Error).message}\n${logs.join('\n')}`);
	}
	return cluster;
}
