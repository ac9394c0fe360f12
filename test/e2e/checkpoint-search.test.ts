import {cpSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterEach, expect, test} from 'vitest';
import {makeTempDir, removeTempDirs} from '../checkpoints/fixtures.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal, wholeFrame} from '../helpers/tmux.js';

// `traintop RUN` (the real binary in a real 120×40 terminal) on copies of trees the frameworks wrote themselves
// (test/fixtures/frameworks/README.md): checkpoints a Lightning ModelCheckpoint(dirpath=RUN/ckpts) and an Orbax
// CheckpointManager(RUN/ckpt) wrote are found by the search below the run dir, under a heading that says where.
// Before the search the pane said "no checkpoints yet in RUN" for both.

const FRAMEWORKS = fileURLToPath(new URL('../fixtures/frameworks/recorded/', import.meta.url));

let term: Terminal | null = null;
afterEach(() => {
	term?.close();
	term = null;
	removeTempDirs();
});

function copyOf(fixture: string): string {
	const run = path.join(makeTempDir('traintop-search-tui-'), 'run');
	cpSync(path.join(FRAMEWORKS, fixture), run, {recursive: true, verbatimSymlinks: true});
	return run;
}

test('Lightning 2.6.6 checkpoints in RUN/ckpts/: the pane lists them under "PyTorch Lightning in ckpts/"', async () => {
	requireBuild();
	const run = copyOf('lightning-dirpath-keep3');
	term = new Terminal(120, 40, `${process.execPath} ${CLI} ${run} --no-log --nvidia-smi /nonexistent`);
	const screen = await term.until(
		s => /^PyTorch Lightning in ckpts\/ · /m.test(s) && wholeFrame(s),
		'the Lightning group heading',
	);
	expect(screen).toMatch(/^step +70 .* periodic +step=70\.ckpt$/m);
	// The kth best of the top-3 by step (Lightning's own state says so): the one its next save deletes.
	expect(screen).toMatch(/^step +50 .* periodic +PRUNE NEXT +step=50\.ckpt$/m);
});

test('Orbax 0.12.4 step dirs in RUN/ckpt/<step>/: the pane lists them under "Orbax in ckpt/"', async () => {
	requireBuild();
	const run = copyOf('orbax-keep3');
	term = new Terminal(120, 40, `${process.execPath} ${CLI} ${run} --no-log --nvidia-smi /nonexistent`);
	const screen = await term.until(s => /^Orbax in ckpt\/ · /m.test(s) && wholeFrame(s), 'the Orbax group heading');
	expect(screen).toMatch(/^step +10 .* +10$/m);
	expect(screen).toMatch(/^step +6 .* +6$/m);
});
