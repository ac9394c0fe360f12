import {afterEach, expect, test} from 'vitest';
import {makeTempDir, removeTempDirs} from '../checkpoints/fixtures.js';
import {hpcSave, topThreeRun} from '../checkpoints/frameworks/lightning-fixture.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal, wholeFrame} from '../helpers/tmux.js';

// The real binary in a real 120×40 terminal on a run dir as Lightning writes it: the checkpoints pane heads each
// group with its framework and the rule its next save deletes by, and marks the worst score, not the oldest.

let term: Terminal | null = null;
afterEach(() => {
	term?.close();
	term = null;
	removeTempDirs();
});

test('the checkpoints pane names the framework and its top-k rule; PRUNE NEXT is the worst val_loss', async () => {
	requireBuild();
	const run = makeTempDir('traintop-fw-tui-');
	const t0 = Date.now() - 3_600_000;
	topThreeRun(run, t0);
	hpcSave(run, 1, t0 + 5 * 60_000); // SIGUSR1 on SLURM: in the run dir, a group of its own, outside the top-k
	term = new Terminal(120, 40, `${process.execPath} ${CLI} ${run} --no-log --nvidia-smi /nonexistent`);
	const screen = await term.until(
		s => /^PyTorch Lightning in lightning_logs/m.test(s) && wholeFrame(s),
		'the Lightning group heading',
	);
	expect(screen).toMatch(
		/^PyTorch Lightning in lightning_logs\/version_0\/checkpoints\/ · Lightning top-3 by val_loss \(min\) \(lightning_logs\/version_/m,
	);
	expect(screen).toMatch(/^step 200 .* PRUNE NEXT +epoch=1-step=200-val_loss=0\.61\.ckpt$/m);
	expect(screen).toMatch(/^step 100 .* periodic +epoch=0-step=100-val_loss=0\.52\.ckpt$/m);
	expect(screen).toMatch(/^step 300 .* last +protected +last\.ckpt$/m);
	expect(screen).toMatch(/^PyTorch Lightning · Lightning last, hpc and exception saves: outside the top-k, never /m);
	expect(screen).toMatch(/^step +- .* manual +protected +hpc_ckpt_1\.ckpt$/m);
});
