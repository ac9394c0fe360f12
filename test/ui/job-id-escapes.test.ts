import {describe, expect, test} from 'vitest';
import {confirmText} from '../../src/ui/confirm-text.js';
import {openDetail} from '../../src/ui/detail-view.js';
import {detailTitle} from '../../src/ui/rank-detail-lines.js';
import {jobExitedStatus, outcomeTitle, saveFinishedStatus, sentStatus} from '../../src/ui/send-status.js';
import {job, NOW, rank} from './fixtures.js';

// The one-node TUI's boxes and status lines name a job by its id, made of its ranks' environment (SLURM_JOB_ID,
// MASTER_ADDR, TORCHELASTIC_RUN_ID: any process of the user sets them), and a save by its checkpoint's name (the
// file system's): each is shown with its control characters as escapes, never sent to the terminal as them.

const PWNED = '\u001b]0;PWNED\u0007\u001b[2J';
const SHOWN = '\\e]0;PWNED\\x07\\e[2J';
const ID = `slurm:9${PWNED}`;

function expectInert(text: string): void {
	expect(text).toContain(SHOWN);
	expect(text).not.toContain('\u001b');
	expect(text).not.toContain('\u0007');
}

describe("a job id or checkpoint name with escapes in the TUI's words", () => {
	const hostile = job(ID, [rank(0, {pid: 100})], {
		worldSize: 2,
		task: {scheduler: 'slurm', jobId: `9${PWNED}`, stepId: null, restartCount: 0, taskId: 0},
	});
	const target = {job: ID, pids: [100], identities: hostile.ranks, marked: false, of: 1};

	test('the confirm box: its title, the route line with the SLURM job id, and the job-gone line', () => {
		const text = confirmText('save', 'SIGUSR1', target, {job: hostile, sessionRunDir: null});
		expectInert(text.title);
		expectInert(text.lines.join('\n'));
		expectInert(confirmText('save', 'SIGUSR1', target, {job: null, sessionRunDir: null}).lines.join('\n'));
	});

	test("the send's result, its status lines and the rank detail's title", () => {
		expectInert(outcomeTitle('save', 'SIGUSR1', ID, []));
		expectInert(sentStatus('SIGUSR1', ID, NOW, 'watching').text);
		expectInert(jobExitedStatus(ID, 'SIGTERM', null).text);
		const saved = {signal: 'SIGUSR1', checkpoint: `ckpt-9${PWNED}`, note: null, seconds: 2, timeoutS: 60} as const;
		expectInert(saveFinishedStatus({...saved, attributed: true}).text);
		expectInert(saveFinishedStatus({...saved, attributed: false, note: `not ${PWNED}`}).text);
		expectInert(detailTitle({rank: 0, pid: 100, job: ID}));
		expectInert(openDetail({pid: 100, startTime: 1, job: ID}, 80)?.view.title ?? '');
	});
});
