import {spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {nodesFromFlags} from '../../src/commands/fleet-connections.js';
import {describe, expect, it} from 'vitest';
import {agentArgs, connectionsFor, nodesFromHosts} from '../../src/commands/fleet-connections.js';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {UsageError} from '../../src/core/errors.js';
import {DEFAULT_SSH_COMMAND, shellQuote} from '../../src/fleet/transports.js';
import {srunConnection} from '../../src/slurm/agent-transport.js';
import {hostLogPathFrom} from '../../src/session/log-path.js';

// From `--hosts` to the agents' command lines: which nodes, how each is reached, what each agent is asked to watch.

describe('--hosts', () => {
	it('[user@]host entries, `local` for an agent here; bad entries name the flag', () => {
		expect(nodesFromHosts('gpu1,alice@gpu2')).toEqual([
			{name: 'gpu1', transport: 'ssh', host: 'gpu1', user: null},
			{name: 'gpu2', transport: 'ssh', host: 'gpu2', user: 'alice'},
		]);
		expect(nodesFromHosts('local')[0]?.transport).toBe('local');
		expect(() => nodesFromHosts('gpu1,,gpu2')).toThrow(
			new UsageError('--hosts: an empty entry in "gpu1,,gpu2" (a comma-separated list of [user@]host)'),
		);
		expect(() => nodesFromHosts('gpu1,gpu1')).toThrow('--hosts: gpu1 is listed twice');
		expect(() => nodesFromHosts('gpu1;rm -rf /')).toThrow('--hosts: "gpu1;rm -rf /" is not [user@]host');
	});
});

describe('agent command lines', () => {
	const agent = agentArgs(DEFAULT_SETTINGS, {match: 'train.py', pid: '42'}, '/runs/exp 1');

	it("every agent watches the same absolute RUN_DIR with this traintop's settings; --pid stays here", () => {
		expect(agent.args).toEqual([
			'/runs/exp 1',
			...['--interval', '1', '--ram-threshold', '85', '--gpu-threshold', '90', '--swap-threshold', '50'],
			...['--warn-margin', String(DEFAULT_SETTINGS.warnMargin), '--match', 'train.py'],
		]);
	});

	it('ssh runs the command as a shell string (as GIT_SSH_COMMAND); the remote line survives the remote shell', () => {
		const [ssh] = connectionsFor([{name: 'gpu2', transport: 'ssh', host: 'gpu2', user: 'alice'}], agent, {
			sshCommand: null,
			self: ['node', 'cli.js'],
		});
		expect(ssh?.argv.slice(0, 6)).toEqual(['sh', '-c', `${DEFAULT_SSH_COMMAND} "$@"`, 'ssh', '-l', 'alice']);
		expect(ssh?.argv[6]).toBe('gpu2');
		// What a POSIX shell on the node makes of the remote line: the same words, the space in RUN_DIR kept.
		const words = spawnSync('sh', ['-c', `printf '%s\\n' ${ssh?.argv[7]}`], {encoding: 'utf8'})
			.stdout.trim()
			.split('\n');
		expect(words.slice(0, 5)).toEqual(['traintop', 'agent', '--node-name', 'gpu2', '/runs/exp 1']);
		expect(shellQuote("it's")).toBe(`'it'\\''s'`);
	});

	it('a local node runs this traintop as a child; srun runs one agent per node of the job, sharing its resources', () => {
		const [local] = connectionsFor([{name: 'here', transport: 'local', host: 'local', user: null}], agent, {
			sshCommand: null,
			self: ['/usr/bin/node', '/opt/traintop/dist/cli.js'],
		});
		expect(local?.argv.slice(0, 5)).toEqual([
			'/usr/bin/node',
			'/opt/traintop/dist/cli.js',
			'agent',
			'--node-name',
			'here',
		]);
		const srun = srunConnection('42', ['n1', 'n2'], agent);
		expect(srun.nodes).toEqual(['n1', 'n2']);
		expect(srun.argv.slice(0, 6)).toEqual([
			'srun',
			'--jobid=42',
			'--overlap',
			'--nodes=2',
			'--ntasks-per-node=1',
			'--ntasks=2',
		]);
	});
});

describe('one memory log per node', () => {
	it('beside where the one log would go, named after the node', () => {
		const settings = {...DEFAULT_SETTINGS, log: true, logFile: null};
		expect(hostLogPathFrom(settings, '/runs/a', 'gpu1')).toBe('/runs/a/traintop-memory.gpu1.jsonl');
		expect(hostLogPathFrom({...settings, logFile: '/tmp/x.jsonl'}, null, 'gpu/2')).toBe('/tmp/x.gpu_2.jsonl');
		expect(hostLogPathFrom({...settings, log: false}, '/runs/a', 'gpu1')).toBeNull();
	});
});

describe('--cluster: the nodes of a cluster.yaml', () => {
	const yaml = [
		'nodes:',
		'  - name: desktop',
		'    host: localhost',
		'    gpus:',
		'      - {uuid: GPU-aaaa-1111, type: rtx-4090, vram_mb: 24564}',
		'  - name: jetson',
		'    host: 10.0.0.7',
		'    transport: ssh',
		'    user: alice',
		'    gpus:',
		'      - {uuid: GPU-bbbb-2222, type: jetson-orin, vram_mb: 32768, memory_type: unified}',
		'',
	].join('\n');

	it("each node by its transport, its GPUs' reserve factors as thresholds unless the user set one", async () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'traintop-cluster-'));
		try {
			const file = path.join(dir, 'cluster.yaml');
			writeFileSync(file, yaml);
			const nodes = await nodesFromFlags({cluster: file}, {});
			const plan = agentArgs(DEFAULT_SETTINGS, {}, null);
			const [desktop, jetson] = connectionsFor(nodes, plan, {sshCommand: 'ssh', self: ['node', 'cli.js']});
			expect(desktop?.argv.slice(0, 5)).toEqual(['node', 'cli.js', 'agent', '--node-name', 'desktop']);
			expect(desktop?.argv.slice(-2)).toEqual(['--gpu-thresholds', 'GPU-aaaa-1111=85']);
			expect(jetson?.argv.slice(3, 7)).toEqual(['ssh', '-l', 'alice', '10.0.0.7']);
			expect(jetson?.argv[7]).toMatch(/ --gpu-thresholds GPU-bbbb-2222=60$/);
			// The user's own --gpu-threshold replaces the reserve factors.
			const mine = await nodesFromFlags({cluster: file}, {gpuThreshold: 95});
			expect(connectionsFor(mine, plan, {sshCommand: 'ssh', self: ['n', 'c']})[0]?.argv).not.toContain(
				'--gpu-thresholds',
			);
			await expect(nodesFromFlags({cluster: file, hosts: 'a'}, {})).rejects.toThrow(
				'--hosts and --cluster cannot be used together',
			);
		} finally {
			rmSync(dir, {recursive: true, force: true});
		}
	});
});
