import {execFileSync} from 'node:child_process';
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {CLI, requireBuild} from '../helpers/dist.js';
import {runCli, startCli, type CliRun} from '../helpers/run-cli.js';
import {Terminal} from '../helpers/tmux.js';

// A FIFO where a checkpoint file belongs (issue 17): opening one for reading blocks until a writer comes, which used
// to leave `checkpoints` hanging, headless deaf to SIGTERM and the TUI blank. The built binary, real FIFOs.

const NO_GPU = ['--nvidia-smi', '/nonexistent/nvidia-smi'];
const SKIPPED = 'skipped: a FIFO, not a regular file';

let dir = '';
let run: CliRun | null = null;
let term: Terminal | null = null;
beforeEach(async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-fifo-'));
	// The seed layout's metadata and a Hugging Face checkpoint's trainer_state.json, both FIFOs.
	await mkdir(path.join(dir, 'checkpoints/checkpoint_step_10'), {recursive: true});
	await writeFile(path.join(dir, 'checkpoints/checkpoint_step_10/state.pt'), 'x'.repeat(100));
	mkfifo(path.join(dir, 'checkpoints/checkpoint_metadata.json'));
	await mkdir(path.join(dir, 'checkpoint-100'));
	await writeFile(path.join(dir, 'checkpoint-100/model.safetensors'), 'x'.repeat(100));
	mkfifo(path.join(dir, 'checkpoint-100/trainer_state.json'));
});
afterEach(async () => {
	run?.child.kill('SIGKILL');
	run = null;
	term?.close();
	term = null;
	await rm(dir, {recursive: true, force: true});
});

function mkfifo(file: string): void {
	execFileSync('mkfifo', [file]);
}

describe('a FIFO in the run dir', () => {
	test('`traintop checkpoints` returns, names each FIFO as skipped and still lists the checkpoints', async () => {
		const text = await runCli(['checkpoints', dir], {timeoutMs: 10_000});
		expect(text.code).toBe(0);
		expect(text.stdout).toContain(`warning: checkpoints/checkpoint_metadata.json: ${SKIPPED}`);
		expect(text.stdout).toContain(`warning: checkpoint-100/trainer_state.json: ${SKIPPED}`);
		expect(text.stdout).toMatch(/checkpoint_step_10$/m);
		expect(text.stdout).toMatch(/checkpoint-100$/m);

		const json = await runCli(['checkpoints', dir, '--json'], {timeoutMs: 10_000});
		expect(json.code).toBe(0);
		const index = JSON.parse(json.stdout) as {checkpoints: {name: string}[]; warnings: string[]};
		expect(index.checkpoints.map(c => c.name).sort()).toEqual(['checkpoint-100', 'checkpoint_step_10']);
		expect(index.warnings).toContain(`checkpoint-100/trainer_state.json: ${SKIPPED}`);
	});

	test('headless keeps printing, also after a FIFO appears mid-run, and exits on SIGTERM within 2 s', async () => {
		run = startCli(['--headless', dir, ...NO_GPU, '--interval', '0.1', '--log-interval', '0.2', '--no-log']);
		const statusLines = () => run!.stdout().match(/ ram \d/g)?.length ?? 0;
		await run.waitFor(() => statusLines() >= 1);
		// One more appearing while it runs: the watcher's rescan reads the new checkpoint dir's trainer_state.json.
		await mkdir(path.join(dir, 'checkpoint-200'));
		mkfifo(path.join(dir, 'checkpoint-200/trainer_state.json'));
		// A FIFO trainer_state.json is not a finished save (no save event for it): a real one after it shows that the
		// rescans went past the FIFO.
		await mkdir(path.join(dir, 'checkpoint-300'));
		await writeFile(path.join(dir, 'checkpoint-300/trainer_state.json'), '{"global_step": 300}');
		await run.waitFor(({stderr}) => stderr.includes('checkpoint-300'));
		const seen = statusLines();
		await run.waitFor(() => statusLines() >= seen + 2);
		const sent = Date.now();
		run.child.kill('SIGTERM');
		// A read blocked on the FIFO would hold the exit forever; a loaded machine, a few seconds at most.
		const code = await Promise.race([run.exited, new Promise(resolve => setTimeout(() => resolve('hung'), 15_000))]);
		expect(code).not.toBe('hung');
		expect(Date.now() - sent).toBeLessThan(15_000);
	});

	test('the TUI draws its panes and quits on q', async () => {
		term = new Terminal(120, 40);
		term.keys(`PS1='$ '; ${process.execPath} ${CLI} ${dir} ${NO_GPU.join(' ')} --no-log; echo "EXIT=$?"`, 'Enter');
		const screen = await term.until(text => /CHECKPOINTS/.test(text) && /checkpoint-100/.test(text));
		expect(screen).toMatch(/checkpoint_step_10/);
		term.keys('q');
		const after = await term.until(text => /^EXIT=\d+/m.test(text));
		expect(after).toContain('EXIT=0');
	});
});
