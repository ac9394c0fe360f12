import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {type DemoJob, startDemoJob} from '../../src/demo/job.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {until} from '../helpers/until.js';
import {Terminal} from '../helpers/tmux.js';

// The built traintop in tmux beside the demo job saving every 0.2 s, with a RAM threshold of 1 % (so RAM is CRIT from
// the first sample): dozens of saves land after the CRIT. Saves are not alerts: capture-pane still shows the CRIT on
// the alerts pane, and the saves are counted on the checkpoints pane.

let term: Terminal;
let dir: string;
let job: DemoJob | null = null;
beforeEach(async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-alerts-'));
	job = await startDemoJob({runDir: dir, ranks: 1, workers: 0, stepSeconds: 0.05, saveEvery: 4, maxCheckpoints: 3});
	await job.ranksReady();
	term = new Terminal(120, 30);
});
afterEach(async () => {
	term?.close();
	await job?.stop();
	await rm(dir, {recursive: true, force: true});
});

/** The periodic saves the job says it made so far. */
const savesMade = (): number => job!.output().match(/saved checkpoint_step_\d+\S* \(periodic\)/g)?.length ?? 0;

/** The screen's alerts pane: from its title to the key bar (the last line written). */
function alertsPane(screen: string): string[] {
	const lines = screen.trimEnd().split('\n');
	const at = lines.findIndex(line => line.startsWith('ALERTS'));
	return at < 0 ? [] : lines.slice(at, -1);
}

test('a RAM CRIT, then saves every 0.2 s: the CRIT stays on the alerts pane, the saves are counted on checkpoints', async () => {
	term.keys(
		`${process.execPath} ${CLI} ${dir} --pid ${job!.launcherPid} --nvidia-smi /nonexistent --interval 0.5 --ram-threshold 1; echo "EXIT=$?"`,
		'Enter',
	);
	await term.until(text => /RANKS 1/.test(text) && /▲ CRIT ram/.test(text));
	// Far more saves than the alerts pane has rows, each seen by traintop as it landed.
	const from = savesMade();
	await until(savesMade, made => made >= from + 40, 'the job to make 40 more saves', 60_000, 200);
	const screen = await term.until(text => /^CHECKPOINTS \d+ · .* · ([3-9]\d|\d{3,}) saves seen\b/m.test(text));
	const pane = alertsPane(screen);
	expect(pane[0], screen).toMatch(/^ALERTS 1 level change\b/);
	expect(pane.join('\n'), screen).toMatch(/▲ CRIT ram [\d.]+% {2}was ok/);
	expect(pane.join('\n'), screen).not.toContain('saved checkpoint_step');
	term.keys('q');
	expect(await term.until(text => /^EXIT=\d+/m.test(text))).toContain('EXIT=0');
}, 120_000);
