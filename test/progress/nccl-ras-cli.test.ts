import {describe, expect, it, type TestContext} from 'vitest';
import {type FakeRasServer, rasFixture, startFakeRasServer} from '../helpers/fake-ras-server.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';

// NCCL's RAS service as the real binary reads it: a local server standing for the service replays what NCCL 2.28.9's
// answered on an H200 (test/fixtures/nccl-ras/, recorded), then an answer with an aborted communicator built from
// NCCL 2.28.9's own format strings; headless traintop shows each and what changed. A service that accepts and never
// answers costs one connection a minute: counted against traintop's own status lines, one a second.

function watch({onTestFinished}: TestContext, server: FakeRasServer): CliRun {
	const run = startCli([
		...['--headless', '--json', '--no-log', '--nvidia-smi', '/nonexistent', '--interval', '0.5'],
		...['--log-interval', '1', '--nccl-ras', server.address, '--match', `no-such-job-${process.pid}`],
	]);
	onTestFinished(async () => {
		run.child.kill('SIGKILL');
		await server.close();
	});
	return run;
}

const rasEvents = (stdout: string) =>
	stdout
		.split('\n')
		.filter(line => line.includes('"event":"nccl_ras"'))
		.map(line => JSON.parse(line) as {groups: {status: string; errors: string}[]; changes: string[]; version: string});

describe('NCCL RAS through the real binary', () => {
	it.concurrent('reads the recorded answer, shows it, and shows what changed when the service says more', async context => {
		const server = await startFakeRasServer(rasFixture('status-2.28.9.txt'));
		const run = watch(context, server);
		await run.waitFor(o => rasEvents(o.stdout).length >= 1, 60_000);
		expect(rasEvents(run.stdout())[0]).toMatchObject({
			version: '2.28.9',
			groups: [{status: 'RUNNING', errors: 'OK'}],
			changes: [],
		});
		await run.waitFor(
			o => o.stderr.includes('NCCL RAS 2.28.9: 1 communicator group — group 0: 1 comm, 1 rank, RUNNING, errors OK'),
			30_000,
		);
		// It asked as NCCL's own client does, and only that.
		expect(server.received.slice(0, 2)).toEqual(['CLIENT PROTOCOL 2', 'STATUS']);
		server.answer(rasFixture('status-error-2.28.9.txt'));
		// Asked again within 15 s of the first answer; the new answer's trouble first, and what changed.
		await run.waitFor(o => rasEvents(o.stdout).length >= 2, 90_000);
		const changed = rasEvents(run.stdout())[1]!;
		expect(changed.groups.some(g => g.status !== 'RUNNING' || g.errors !== 'OK')).toBe(true);
		expect(changed.changes.length).toBeGreaterThan(0);
		console.log(`NCCL RAS changes seen: ${changed.changes.join(' | ')}`);
	}, 180_000);

	it.concurrent('a service that accepts and never answers is asked once, and not again within the minute', async context => {
		const server = await startFakeRasServer(rasFixture('status-2.28.9.txt'));
		server.silence(true);
		const run = watch(context, server);
		await run.waitFor(() => server.connections() === 1 && server.open() === 0, 60_000);
		// traintop gave up on it (its answer timeout). Its memory records say the time on its own clock: wait for one
		// written 55 s after the connection was made.
		const asked = Date.now();
		const newest = () =>
			Math.max(
				0,
				...run
					.stdout()
					.split('\n')
					.filter(line => line.startsWith('{"timestamp"'))
					.map(line => Date.parse((JSON.parse(line) as {timestamp: string}).timestamp)),
			);
		await run.waitFor(() => newest() >= asked + 55_000, 120_000);
		expect(server.connections()).toBe(1);
		expect(rasEvents(run.stdout())).toEqual([]);
	}, 180_000);
});
